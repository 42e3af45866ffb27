import {
  DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeValidationError, InsufficientFundsError, OrderNotFoundError,
} from '../../domain/errors';

/**
 * The exchange's answers when it says no, built as the same error classes the HTTP client raises,
 * so a backtest driving the engine directly sees exactly what live trading would. The server turns
 * them back into the wire body `{code, message, errors}` with `httpStatus`.
 *
 * Codes and HTTP statuses follow exchange-api-extra §3: request validation (30-37) is HTTP 422
 * `Validation failed`; engine-side ("inner") rejections (2, 10, 15x) are HTTP 400 `Inner validation failed`.
 */
const VALIDATION = 'Validation failed';
const INNER = 'Inner validation failed';

type FieldErrors = Record<string, string[]>;

export function validationError(venueCode: number, field: string, text: string): ExchangeValidationError {
  return new ExchangeValidationError(VALIDATION, venueCode, { [field]: [text] } as FieldErrors, 422);
}

export function marketNotAvailable(): ExchangeValidationError {
  return validationError(31, 'market', 'Market is not available.');
}

export function notEnoughBalance(field = 'amount'): InsufficientFundsError {
  return new InsufficientFundsError(INNER, 10, { [field]: ['Not enough balance.'] }, 400);
}

export function orderNotFound(field: string): OrderNotFoundError {
  return new OrderNotFoundError(INNER, 2, { [field]: ['Unexecuted order was not found.'] }, 400);
}

export function duplicateClientOrderId(): DuplicateClientOrderIdError {
  return new DuplicateClientOrderIdError(
    VALIDATION, 36, { clientOrderId: ['This client order id is already used by the current account.'] }, 422,
  );
}

/**
 * OCO-specific inner rejections, as the venue's OCO page lists them: 150 `price` "Can't place limit
 * order.", 151 `activation_price` "Wrong activation price for stop loss.", 152 / 153 `price` "Not
 * enough balance for stop limit order." / "... for limit order." (funds, hence InsufficientFundsError).
 */
export function ocoRejected(venueCode: 150 | 151, field: string, text: string): ExchangeRejectedError {
  return new ExchangeRejectedError(INNER, venueCode, { [field]: [text] }, 400);
}

export function ocoNotEnoughBalance(leg: 'stop_loss' | 'take_profit'): InsufficientFundsError {
  return leg === 'stop_loss'
    ? new InsufficientFundsError(INNER, 152, { price: ['Not enough balance for stop limit order.'] }, 400)
    : new InsufficientFundsError(INNER, 153, { price: ['Not enough balance for limit order.'] }, 400);
}

/**
 * `main-account/transfer` refusals, with the documentation's statuses (the reverse of the order
 * endpoints'): request validation is HTTP 400 code 0 `Validation failed`, inner refusals HTTP 422
 * `Inner validation failed` (code 3: not enough balance).
 */
export function transferInvalid(field: string, text: string): ExchangeValidationError {
  return new ExchangeValidationError(VALIDATION, 0, { [field]: [text] } as FieldErrors, 400);
}

export function transferNotEnough(available: string, amount: string): InsufficientFundsError {
  return new InsufficientFundsError(INNER, 3, { amount: [`You don't have such amount for transfer (available ${available}, in amount: ${amount})`] }, 422);
}

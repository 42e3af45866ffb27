import type { OrderReport } from './order';
import { TradebotError, type ErrorContext } from './tradebot-error';

/**
 * The error tree. Every error tradebot throws extends TradebotError and carries a stable `code`
 * (documented in the README's error table), context fields and an optional `cause`.
 *
 * Two branches matter to callers that talk to the exchange (as in ccxt):
 * - ExchangeRejectedError and its subclasses: the exchange answered and said no. Nothing happened.
 * - ExchangeUnavailableError and its subclasses: the outcome is unknown or the call may be retried.
 *   After an order was sent this never means "rejected": the order may exist.
 */
export { InvalidDecimalError, TradebotError, type ErrorContext } from './tradebot-error';

/** A config file or environment variable is invalid; `context.path` names the key. */
export class ConfigError extends TradebotError {
  override readonly name = 'ConfigError';
  readonly code = 'TB_ERR_CONFIG';
}

/** A request was refused locally, before any network call, because it breaks the API's rules. */
export class RequestValidationError extends TradebotError {
  override readonly name = 'RequestValidationError';
  readonly code = 'TB_ERR_REQUEST_INVALID';
  constructor(
    message: string,
    readonly fieldErrors: Readonly<Record<string, readonly string[]>>,
    context: ErrorContext = {},
  ) {
    super(message, { ...context, fieldErrors });
  }
}

// ---- the exchange said no -------------------------------------------------------------------

/** The exchange answered with an error: the request had no effect. `context` has the venue code and field errors. */
export class ExchangeRejectedError extends TradebotError {
  override readonly name: string = 'ExchangeRejectedError';
  readonly code: string = 'TB_ERR_EXCHANGE_REJECTED';
  constructor(
    message: string,
    readonly venueCode: number | undefined,
    readonly fieldErrors: Readonly<Record<string, readonly string[]>>,
    readonly httpStatus: number | undefined,
    context: ErrorContext = {},
  ) {
    super(message, { ...context, venueCode, fieldErrors, httpStatus });
  }
}

/** Private code 0 or 30 (`Validation failed`) and the other 3x field codes. */
export class ExchangeValidationError extends ExchangeRejectedError {
  override readonly name: string = 'ExchangeValidationError';
  override readonly code: string = 'TB_ERR_EXCHANGE_VALIDATION';
}
/**
 * HTTP 453: the account's region does not offer this order type (the EU region refuses stop-limit
 * and OCO), or the market is not yet listed for it. A validation error naming `orderType`; retrying
 * cannot help, another region or order type can.
 */
export class RegionRefusedError extends ExchangeValidationError {
  override readonly name = 'RegionRefusedError';
  override readonly code = 'TB_ERR_REGION_REFUSED';
}
/** Bad key, bad signature, bad payload, missing permission. Never retried. */
export class AuthenticationError extends ExchangeRejectedError {
  override readonly name = 'AuthenticationError';
  override readonly code = 'TB_ERR_AUTH';
}
/** Not enough balance for the order. */
export class InsufficientFundsError extends ExchangeRejectedError {
  override readonly name = 'InsufficientFundsError';
  override readonly code = 'TB_ERR_INSUFFICIENT_FUNDS';
}
/** `Unexecuted order was not found.`: the order does not exist or is no longer open. */
export class OrderNotFoundError extends ExchangeRejectedError {
  override readonly name = 'OrderNotFoundError';
  override readonly code = 'TB_ERR_ORDER_NOT_FOUND';
}
/** Code 36: the client_order_id is already used by an open order: the order exists, look it up. */
export class DuplicateClientOrderIdError extends ExchangeRejectedError {
  override readonly name = 'DuplicateClientOrderIdError';
  override readonly code = 'TB_ERR_DUPLICATE_CLIENT_ORDER_ID';
}

/**
 * An order-create answer did not echo the client order id that was sent (or came back in another
 * wire dialect): the venue ignored the id, so this order has lost its exactly-once safety net. Thrown
 * by the client AFTER it tried to cancel the order by its exchange id: `context.canceled` says whether
 * that worked, `context.orderId` / `context.ocoId` name it, `context.dialect` / `context.answeredIn`
 * the dialects. `legs` are the order's latest reports (after the cancel when it worked), [order] or
 * [stopLoss, takeProfit], so the journal can record what happened. The daemon halts trading on it.
 */
export class ClientOrderIdIgnoredError extends TradebotError {
  override readonly name = 'ClientOrderIdIgnoredError';
  readonly code = 'TB_ERR_CLIENT_ORDER_ID_IGNORED';
  constructor(
    message: string,
    readonly legs: readonly OrderReport[],
    readonly ocoId: number | undefined,
    context: ErrorContext = {},
  ) {
    super(message, context);
  }
}

// ---- outcome unknown / retryable --------------------------------------------------------------

/** The exchange could not be reached or answered 5xx / "try again later". The outcome is unknown. */
export class ExchangeUnavailableError extends TradebotError {
  override readonly name: string = 'ExchangeUnavailableError';
  readonly code: string = 'TB_ERR_EXCHANGE_UNAVAILABLE';
}
/** HTTP 429: rate limited, or (private endpoints) a nonce the exchange refused. `context.nonce` tells which. */
export class RateLimitedError extends ExchangeUnavailableError {
  override readonly name = 'RateLimitedError';
  override readonly code = 'TB_ERR_RATE_LIMITED';
}
/** No answer within the timeout. For an order this means "may exist". */
export class RequestTimeoutError extends ExchangeUnavailableError {
  override readonly name = 'RequestTimeoutError';
  override readonly code = 'TB_ERR_TIMEOUT';
}
/** The answer could not be parsed or had the wrong shape. The request may have taken effect. */
export class BadResponseError extends ExchangeUnavailableError {
  override readonly name = 'BadResponseError';
  override readonly code = 'TB_ERR_BAD_RESPONSE';
}

/**
 * The server answered a signed or public request with a redirect (3xx). Never followed: the signed
 * headers would go to another host. `context.httpStatus` and `context.location` name it. The request
 * reached the first server, so its outcome counts as unknown; it is not retried.
 */
export class RedirectRefusedError extends ExchangeUnavailableError {
  override readonly name = 'RedirectRefusedError';
  override readonly code = 'TB_ERR_REDIRECT';
}
/** The answer was larger than `exchange.maxResponseBytes`; the connection was dropped unread. Not retried. */
export class ResponseTooLargeError extends ExchangeUnavailableError {
  override readonly name = 'ResponseTooLargeError';
  override readonly code = 'TB_ERR_RESPONSE_TOO_LARGE';
}

// ---- orders, state, strategies ---------------------------------------------------------------

/** An order event is not allowed from the order's current status (see domain/order-state.ts). */
export class InvalidTransitionError extends TradebotError {
  override readonly name = 'InvalidTransitionError';
  readonly code = 'TB_ERR_INVALID_TRANSITION';
}
/** The store's compare-and-set lost: the order was not in the expected status. */
export class StaleStateError extends TradebotError {
  override readonly name = 'StaleStateError';
  readonly code = 'TB_ERR_STALE_STATE';
}
/** This replica no longer holds the lease (fencing token) for the strategy and market. */
export class LeaseLostError extends TradebotError {
  override readonly name = 'LeaseLostError';
  readonly code = 'TB_ERR_LEASE_LOST';
}
/** A pre-trade risk check refused an intent. `context.rule` names the check. */
export class RiskDeniedError extends TradebotError {
  override readonly name = 'RiskDeniedError';
  readonly code = 'TB_ERR_RISK_DENIED';
}
/** A strategy module failed to load or validate. `context.file` names it. */
export class StrategyLoadError extends TradebotError {
  override readonly name = 'StrategyLoadError';
  readonly code = 'TB_ERR_STRATEGY_LOAD';
}
/** A strategy threw or overran its time budget. */
export class StrategyFailedError extends TradebotError {
  override readonly name = 'StrategyFailedError';
  readonly code = 'TB_ERR_STRATEGY_FAILED';
}
/** Redis (or the in-process store) failed; nothing was recorded. */
export class StoreUnavailableError extends TradebotError {
  override readonly name: string = 'StoreUnavailableError';
  readonly code = 'TB_ERR_STORE_UNAVAILABLE';
}
/**
 * The journal record was written on the primary but not confirmed by the replicas `redis.replicaAcks`
 * asks for in time: the order is NOT sent (a failover could lose a record of a live order).
 */
export class JournalNotReplicatedError extends StoreUnavailableError {
  override readonly name = 'JournalNotReplicatedError';
}
/** Submitting is not allowed yet (first reconciliation pending) or any more (shutting down, halted). */
export class NotReadyError extends TradebotError {
  override readonly name = 'NotReadyError';
  readonly code = 'TB_ERR_NOT_READY';
}
/** Backtest input is inconsistent (a fill in a market without candles, unsorted candles, a bad interval). `context.field` names it. */
export class BacktestInputError extends TradebotError {
  override readonly name = 'BacktestInputError';
  readonly code = 'TB_ERR_BACKTEST_INPUT';
}
/**
 * A distributed sweep cannot go on: the queue Redis is not configured or not reachable, a sweep ID is
 * unknown, or a worker refused a chunk (data or strategy whose content hash differs, another
 * tradebot version). `context` names the sweep, chunk or field; never the queue URL's password.
 */
export class SweepQueueError extends TradebotError {
  override readonly name = 'SweepQueueError';
  readonly code = 'TB_ERR_SWEEP_QUEUE';
}

import { Decimal, stepForPrecision } from '../../domain/decimal';
import { compareDecimals, productOf } from '../../domain/decimal-compare';
import type { MarketInfo } from '../../domain/market';
import { validationError } from './rejections';

/**
 * The market rules an order must pass before it is accepted, answered with the exchange's codes and
 * texts (exchange-api-extra §3.3, §5.1): amount and price steps (codes 32/33), minimum amount (32),
 * minimum and maximum total (30). Comparisons use compareDecimals (no allocation; per order).
 */
const ZERO = new Decimal(0);

export function checkAmount(market: MarketInfo, amount: Decimal): void {
  if (compareDecimals(amount, ZERO) <= 0) throw validationError(32, 'amount', 'Amount should be greater than 0.');
  if (amount.decimalPlaces() > market.stockPrec) {
    throw validationError(32, 'amount', `Min amount step = ${stepForPrecision(market.stockPrec).toString()}`);
  }
  if (compareDecimals(amount, market.minAmount) < 0) {
    throw validationError(32, 'amount', `Given amount is less than min amount ${market.minAmount.toString()}`);
  }
}

export function checkPrice(market: MarketInfo, price: Decimal, field = 'price'): void {
  if (compareDecimals(price, ZERO) <= 0) throw validationError(33, field, 'Price should be greater than 0.');
  if (price.decimalPlaces() > market.moneyPrec) {
    throw validationError(33, field, `Min price step = ${stepForPrecision(market.moneyPrec).toString()}`);
  }
}

export function checkActivationPrice(market: MarketInfo, price: Decimal, field = 'activation_price'): void {
  if (compareDecimals(price, ZERO) <= 0) throw validationError(30, field, 'Activation price should be greater than 0.');
  if (price.decimalPlaces() > market.moneyPrec) {
    throw validationError(30, field, `Min activation price step = ${stepForPrecision(market.moneyPrec).toString()}`);
  }
}

export function checkTotal(market: MarketInfo, amount: Decimal, price: Decimal): void {
  const total = productOf(amount, price);
  if (compareDecimals(total, market.minTotal) < 0) {
    throw validationError(30, 'total', `Total(amount * price) is less than ${market.minTotal.toString()}`);
  }
  if (!market.maxTotal.isZero() && compareDecimals(total, market.maxTotal) > 0) {
    throw validationError(30, 'total', `Total(amount * price) is greater than ${market.maxTotal.toString()}`);
  }
}

/** All checks of a limit order (or the limit part of a stop order). */
export function checkLimitOrder(market: MarketInfo, amount: Decimal, price: Decimal, priceField = 'price'): void {
  checkAmount(market, amount);
  checkPrice(market, price, priceField);
  checkTotal(market, amount, price);
}

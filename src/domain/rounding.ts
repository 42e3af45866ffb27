import { Decimal } from './decimal';
import { compareDecimals, productOf } from './decimal-compare';
import type { MarketInfo } from './market';
import type { OrderSide } from './order';

/**
 * Rounding to the market's precision, before anything is journaled or sent (execution/orders/
 * prepare-order.ts), and by the strategy SDK's sizing helpers (strategy/sizing.ts): one rule for both.
 *
 * - Amounts round DOWN to `stockPrec`: never more than the strategy asked for, and never more than
 *   it may have funded.
 * - Limit prices (stop-limit price, OCO take-profit and stop-limit price) round so the order is never
 *   WORSE than the strategy asked: a buy rounds down (never pays more), a sell rounds up (never
 *   receives less). The cost: a limit can end up to one tick less aggressive.
 * - Activation (trigger) prices round so the trigger fires NO LATER than asked: a buy stop (fires at
 *   price >= activation) rounds down, a sell stop (fires at price <= activation) rounds up. For a
 *   protective stop, firing one tick early is cheaper than one tick late.
 * The difference is at most one tick (10^-moneyPrec) per price.
 */
export function roundAmount(amount: Decimal, market: MarketInfo): Decimal {
  return roundTo(amount, market.stockPrec, Decimal.ROUND_DOWN);
}

export function roundLimitPrice(price: Decimal, side: OrderSide, market: MarketInfo): Decimal {
  return roundTo(price, market.moneyPrec, side === 'buy' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP);
}

export function roundActivationPrice(price: Decimal, side: OrderSide, market: MarketInfo): Decimal {
  return roundTo(price, market.moneyPrec, side === 'buy' ? Decimal.ROUND_DOWN : Decimal.ROUND_UP);
}

/** A value already within the precision (strategies usually round themselves) is returned as is: same value, no allocation. */
function roundTo(value: Decimal, places: number, mode: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8): Decimal {
  return value.isFinite() && value.decimalPlaces() <= places ? value : value.toDecimalPlaces(places, mode);
}

const ZERO = new Decimal(0);

export type SizeCheck = { readonly ok: true } | { readonly ok: false; readonly rule: 'min_amount' | 'min_total' | 'max_total'; readonly reason: string };

/**
 * The market's size limits, checked on the ROUNDED values (what would be sent). `prices` are every
 * limit price the order may execute at; each must reach minTotal, because any leg may be the one
 * that executes.
 */
export function checkSize(amount: Decimal, prices: readonly Decimal[], market: MarketInfo): SizeCheck {
  // compareDecimals: the same comparisons without decimal.js's per-call copies (this runs per order).
  if (compareDecimals(amount, ZERO) <= 0 || compareDecimals(amount, market.minAmount) < 0) {
    return { ok: false, rule: 'min_amount', reason: `amount ${amount.toString()} is below the minimum ${market.minAmount.toString()} of ${market.name}` };
  }
  for (const price of prices) {
    const total = productOf(amount, price);
    if (compareDecimals(total, market.minTotal) < 0) {
      return { ok: false, rule: 'min_total', reason: `total ${total.toString()} is below the minimum ${market.minTotal.toString()} of ${market.name}` };
    }
    if (compareDecimals(market.maxTotal, ZERO) > 0 && compareDecimals(total, market.maxTotal) > 0) {
      return { ok: false, rule: 'max_total', reason: `total ${total.toString()} is above the maximum ${market.maxTotal.toString()} of ${market.name}` };
    }
  }
  return { ok: true };
}

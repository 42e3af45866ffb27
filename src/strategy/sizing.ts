import { Decimal, stepForPrecision } from '../domain/decimal';
import { InvalidDecimalError } from '../domain/tradebot-error';
import type { MarketInfo } from '../domain/market';
import { checkSize, roundAmount } from '../domain/rounding';

// Position sizing for strategies (part of the SDK, `tradebot/strategy`; docs/strategies.md "Sizing
// helpers"). Decimal throughout; amounts round DOWN to the market's amount precision with the same
// rule, and are checked against the same minimums, as the executor's (domain/rounding.ts), so a size
// these helpers accept is not refused for its size when the order is prepared at the same price
// (already rounded to moneyPrec).
// A size below the market's minimums is reported, never bumped up. (Line comments: this note stays
// out of the SDK's bundled declarations, whose hovers name no daemon path.)

/** Why a size is what it is: the binding limit. */
export type SizeLimit = 'risk' | 'money' | 'max_total';

/**
 * What the sizing helpers return. `ok: true`: `amount` (stock, rounded down to `stockPrec`, > 0) and
 * `total` = amount × price (the order's money, fees not included); `limitedBy` names the limit that
 * set it. `ok: false`: the largest allowed size is below the market's minimum amount (`min_amount`, a
 * zero amount included) or minimum total (`min_total`); `amount` is that rounded size (maybe 0), and
 * `reason` reads like the executor's denial. Trade nothing then (or log it).
 */
export type SizeResult =
  | { readonly ok: true; readonly amount: Decimal; readonly total: Decimal; readonly limitedBy: SizeLimit }
  | { readonly ok: false; readonly rule: 'min_amount' | 'min_total'; readonly reason: string; readonly amount: Decimal };

export interface SizeForRiskArgs {
  /** The entry price: the order's (limit) price, or the price you expect it to fill at. */
  readonly entry: Decimal;
  /** The stop's price (its limit price, the worst you expect the exit at). Below `entry`: a long (buy); above: a short (sell). */
  readonly stop: Decimal;
  /** Money (the market's money currency, e.g. USDT) at most lost from entry to stop, fees of both trades included. */
  readonly risk: Decimal;
  /** The market's precision, minimums and fees: `ctx.marketInfo` (undefined when unknown: check it first). */
  readonly marketInfo: MarketInfo;
  /** Fee ratio per trade (0.001 = 0.1 %), charged at both ends. Default: the larger of the market's maker and taker fee. `new Decimal(0)` leaves fees out. */
  readonly feeRate?: Decimal;
  /** Money the entry may spend at most, fees included: amount × entry × (1 + feeRate) ≤ maxMoney (e.g. `ctx.balances['USDT']?.available`). */
  readonly maxMoney?: Decimal;
}

export interface SizeForNotionalArgs {
  /** Money (the market's money currency) to spend at most, fees included: amount × price × (1 + feeRate) ≤ money. */
  readonly money: Decimal;
  /** The order's (limit) price. */
  readonly price: Decimal;
  /** The market's precision, minimums and fees: `ctx.marketInfo`. */
  readonly marketInfo: MarketInfo;
  /** Fee ratio (0.001 = 0.1 %). Default: the larger of the market's maker and taker fee. `new Decimal(0)`: `money` is the order's total. */
  readonly feeRate?: Decimal;
}

/**
 * The amount whose loss from `entry` to `stop`, plus the fee of both trades, is at most `risk`:
 * amount × (|entry − stop| + feeRate × (entry + stop)) ≤ risk, rounded DOWN to the market's amount
 * precision, then capped by `maxMoney` and by the market's maximum total (when it has one). Works for
 * both sides: stop below entry sizes a long, stop above entry a short.
 *
 *   if (ctx.marketInfo === undefined) return [];
 *   const size = sizeForRisk({ entry, stop, risk: new Decimal(100), marketInfo: ctx.marketInfo });
 *   if (!size.ok) { ctx.log.info({ reason: size.reason }, 'too small to trade'); return []; }
 *   // size.amount: the order's amount
 *
 * Throws an Error naming the field on bad input: a non-Decimal (a number or string), a price that is
 * not positive, entry == stop, a negative risk, fee or maxMoney, a missing marketInfo.
 */
export function sizeForRisk(args: SizeForRiskArgs): SizeResult {
  const fn = 'sizeForRisk';
  if (typeof args !== 'object' || args === null) throw new TypeError(`${fn}: expected an object { entry, stop, risk, marketInfo }`);
  const market = checkedMarket(fn, args.marketInfo);
  const entry = decimalArg(fn, 'entry', args.entry, 'positive');
  const stop = decimalArg(fn, 'stop', args.stop, 'positive');
  const risk = decimalArg(fn, 'risk', args.risk, 'non-negative');
  const fee = feeArg(fn, args.feeRate, market);
  const maxMoney = args.maxMoney === undefined ? undefined : decimalArg(fn, 'maxMoney', args.maxMoney, 'non-negative');
  if (entry.equals(stop)) {
    throw new InvalidDecimalError(`${fn}: stop must differ from entry (both ${entry.toString()}): no distance to size from`, { field: 'stop' });
  }
  const distance = entry.minus(stop).abs();
  const lossPerUnit = distance.plus(fee.times(entry.plus(stop)));
  let size = { amount: amountWithin(risk, lossPerUnit, market), limitedBy: 'risk' as SizeLimit };
  if (maxMoney !== undefined) size = smaller(size, { amount: amountWithin(maxMoney, entry.times(fee.plus(1)), market), limitedBy: 'money' });
  size = cappedByMaxTotal(size, entry, market);
  const feeText = fee.isZero() ? 'no fees' : `fees ${fee.toString()} at both ends`;
  return checked(size, entry, market, `risk ${risk.toString()} ${market.money} over a stop ${distance.toString()} away (${feeText})`);
}

/**
 * The amount that spends at most `money`, fees included: amount × price × (1 + feeRate) ≤ money,
 * rounded DOWN to the market's amount precision, capped by the market's maximum total.
 * Throws an Error naming the field on bad input, as sizeForRisk does.
 */
export function sizeForNotional(args: SizeForNotionalArgs): SizeResult {
  const fn = 'sizeForNotional';
  if (typeof args !== 'object' || args === null) throw new TypeError(`${fn}: expected an object { money, price, marketInfo }`);
  const market = checkedMarket(fn, args.marketInfo);
  const money = decimalArg(fn, 'money', args.money, 'non-negative');
  const price = decimalArg(fn, 'price', args.price, 'positive');
  const fee = feeArg(fn, args.feeRate, market);
  const size = cappedByMaxTotal({ amount: amountWithin(money, price.times(fee.plus(1)), market), limitedBy: 'money' }, price, market);
  const feeText = fee.isZero() ? 'no fees' : `fee ${fee.toString()}`;
  return checked(size, price, market, `${money.toString()} ${market.money} at ${price.toString()} (${feeText})`);
}

interface Size {
  readonly amount: Decimal;
  readonly limitedBy: SizeLimit;
}

/** The largest amount, rounded down to the market's amount precision, with amount × perUnit ≤ budget. */
function amountWithin(budget: Decimal, perUnit: Decimal, market: MarketInfo): Decimal {
  const amount = roundAmount(budget.dividedBy(perUnit), market);
  // The division is exact to 40 digits and rounds half up; a quotient a hair under a step boundary
  // could round onto it. One step back keeps "at most" exact.
  return amount.times(perUnit).greaterThan(budget) ? amount.minus(stepForPrecision(market.stockPrec)) : amount;
}

function smaller(a: Size, b: Size): Size {
  return b.amount.lessThan(a.amount) ? b : a;
}

function cappedByMaxTotal(size: Size, price: Decimal, market: MarketInfo): Size {
  if (!market.maxTotal.isPositive() || market.maxTotal.isZero()) return size; // zero: no limit
  return smaller(size, { amount: amountWithin(market.maxTotal, price, market), limitedBy: 'max_total' });
}

function checked(size: Size, price: Decimal, market: MarketInfo, what: string): SizeResult {
  const amount = size.amount;
  const check = checkSize(amount, [price], market);
  if (check.ok) return { ok: true, amount, total: amount.times(price), limitedBy: size.limitedBy };
  if (check.rule === 'max_total') throw new Error(`internal: a size capped by the maximum total exceeds it: ${check.reason}`);
  return { ok: false, rule: check.rule, reason: `${what} sizes ${amount.toString()} ${market.stock}: ${check.reason}`, amount };
}

function checkedMarket(fn: string, market: MarketInfo | undefined): MarketInfo {
  if (typeof market !== 'object' || market === null) {
    throw new TypeError(`${fn}: marketInfo is required (pass ctx.marketInfo, which is undefined when the host does not know the market: check it first)`);
  }
  if (!Number.isInteger(market.stockPrec) || market.stockPrec < 0) {
    throw new TypeError(`${fn}: marketInfo.stockPrec must be a non-negative integer, got ${String(market.stockPrec)}`);
  }
  for (const field of ['minAmount', 'minTotal', 'maxTotal', 'makerFee', 'takerFee'] as const) {
    if (!Decimal.isDecimal(market[field])) throw new TypeError(`${fn}: marketInfo.${field} must be a Decimal`);
  }
  return market;
}

function feeArg(fn: string, feeRate: Decimal | undefined, market: MarketInfo): Decimal {
  if (feeRate === undefined) return Decimal.max(market.makerFee, market.takerFee);
  const fee = decimalArg(fn, 'feeRate', feeRate, 'non-negative');
  if (fee.greaterThanOrEqualTo(1)) throw new InvalidDecimalError(`${fn}: feeRate is a ratio (0.001 = 0.1 %), must be below 1, got ${fee.toString()}`, { field: 'feeRate' });
  return fee;
}

/**
 * A Decimal argument as the project's Decimal (an instance of another decimal.js copy is converted,
 * as intents' are); numbers (floats) and strings are refused, like in intents.
 */
function decimalArg(fn: string, field: string, value: unknown, sign: 'positive' | 'non-negative'): Decimal {
  if (!Decimal.isDecimal(value)) {
    const got = value === undefined ? 'nothing' : value === null ? 'null' : `a ${typeof value}`;
    throw new InvalidDecimalError(`${fn}: ${field} must be a Decimal (not a number or string), got ${got}`, { field });
  }
  const d = value instanceof Decimal ? value : new Decimal(value as Decimal);
  if (!d.isFinite()) throw new InvalidDecimalError(`${fn}: ${field} must be finite, got ${d.toString()}`, { field });
  if (sign === 'positive' ? !d.isPositive() || d.isZero() : d.isNegative() && !d.isZero()) {
    throw new InvalidDecimalError(`${fn}: ${field} must be ${sign === 'positive' ? 'positive' : 'zero or more'}, got ${d.toString()}`, { field });
  }
  return d;
}

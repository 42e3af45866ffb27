import { Decimal } from '../domain/decimal';
import { compareDecimals, productOf } from '../domain/decimal-compare';
import type { OcoIntent, StopLimitIntent } from '../domain/intent';
import type { Balances, MarketInfo } from '../domain/market';
import type { OpenOrderView } from './open-order-view';
import type { MarketRiskLimits } from './risk-limits';
import type { GuardName } from './guardrails/guard-latch';

/** Names of the pre-trade rules; a denial carries one (the executor's OrderDenied event too). */
export type RiskRule =
  | 'trading_state' | 'daily_loss_limit' | 'price_band' | 'max_order_notional' | 'max_market_notional'
  | 'max_open_orders' | 'balance' | 'market_minimums' | GuardName;

export interface RiskDenial {
  readonly allowed: false;
  readonly rule: RiskRule;
  readonly message: string;
}
export type RiskDecision = { readonly allowed: true } | RiskDenial;

/** What the caller (executor, backtest) knows when an intent is checked. */
export interface RiskContext {
  /** The strategy that emitted the intent. */
  readonly strategy: string;
  /** Last traded price (or the last candle close); undefined when unknown: price-band checks then deny. */
  readonly lastPrice: Decimal | undefined;
  /** The trading (spot) balance. */
  readonly balances: Balances;
  /**
   * The wallet an OCO draws on (domain/collateral.ts ocoWallet); default 'collateral', as the venue.
   * Only the trading balance is checked here: an OCO on the collateral account is checked by the
   * executor against that account (execution/orders/prepare-order.ts), never against the spot balance.
   */
  readonly ocoWallet?: 'trading' | 'collateral' | undefined;
  /** Every open order of ours ON THIS MARKET, all strategies (an OCO is one view). */
  readonly openOrders: readonly OpenOrderView[];
  /** Precision, minimums and currency names; without it, currencies come from the market name. */
  readonly marketInfo?: MarketInfo | undefined;
  /**
   * Market time (ms) of the decision: the close of the intent's candle. The guardrails judge by it, so
   * the daemon and a backtest decide the same; without it they are not asked.
   */
  readonly decisionMs?: number | undefined;
  /** The strategy's open orders on every market (its budget); default those on this market. */
  readonly strategyOpenOrders?: (() => readonly OpenOrderView[]) | undefined;
}

export type OrderIntent = StopLimitIntent | OcoIntent;
export type RiskCheck = (intent: OrderIntent, ctx: RiskContext, limits: MarketRiskLimits) => RiskDenial | undefined;

export function deny(rule: RiskRule, message: string): RiskDenial {
  return { allowed: false, rule, message };
}

// The checks run for every order of a backtest: comparisons go through compareDecimals (decimal.js's
// own lessThan / greaterThan copy their argument), `amount x price` through productOf (the executor
// and the engine need the same product of the same instances), and constants are built once.
const ZERO = new Decimal(0);
const ONE = new Decimal(1);

/** Worst-case money value of an order: amount x the highest price it may execute at. */
export function intentNotional(intent: OrderIntent): Decimal {
  if (intent.kind !== 'oco') return productOf(intent.amount, intent.price);
  const price = compareDecimals(intent.stopLimitPrice, intent.price) > 0 ? intent.stopLimitPrice : intent.price;
  return productOf(intent.amount, price);
}

/** Worst-case money value of one of our open orders (an OCO at its higher price). */
export function viewNotional(view: OpenOrderView): Decimal {
  return view.amount.times(view.stopLimitPrice === undefined ? view.price : Decimal.max(view.price, view.stopLimitPrice));
}

export const checkOrderNotional: RiskCheck = (intent, _ctx, limits) => {
  const max = limits.maxOrderNotional;
  if (max === undefined) return undefined;
  const notional = intentNotional(intent);
  return compareDecimals(notional, max) > 0 ? deny('max_order_notional', `order notional ${notional} exceeds ${max} on ${intent.market}`) : undefined;
};

export const checkMarketNotional: RiskCheck = (intent, ctx, limits) => {
  const max = limits.maxMarketNotional;
  if (max === undefined) return undefined;
  let total = intentNotional(intent);
  for (const o of ctx.openOrders) if (o.market === intent.market) total = total.plus(viewNotional(o));
  return compareDecimals(total, max) > 0 ? deny('max_market_notional', `open notional on ${intent.market} would be ${total}, limit ${max}`) : undefined;
};

export const checkOpenOrders: RiskCheck = (intent, ctx, limits) => {
  const max = limits.maxOpenOrdersPerStrategy;
  if (max === undefined) return undefined;
  let count = 0;
  for (const o of ctx.openOrders) if (o.market === intent.market && o.strategy === ctx.strategy) count++;
  return count >= max ? deny('max_open_orders', `strategy ${ctx.strategy} already has ${count} open orders on ${intent.market} (max ${max})`) : undefined;
};

/** Fat-finger guard on every price of the intent (limit, activation, OCO stop-limit). */
export const checkPriceBand: RiskCheck = (intent, ctx, limits) => {
  const band = limits.priceBand;
  if (band === undefined) return undefined;
  const last = ctx.lastPrice;
  if (last === undefined || !(compareDecimals(last, ZERO) > 0)) return deny('price_band', `no last price known for ${intent.market}: cannot check the price band`);
  const bounds = bandBounds(last, band);
  return outsideBand(intent.price, 'price', last, band, bounds)
    ?? outsideBand(intent.activationPrice, 'activationPrice', last, band, bounds)
    ?? (intent.kind === 'oco' ? outsideBand(intent.stopLimitPrice, 'stopLimitPrice', last, band, bounds) : undefined);
};

interface BandBounds {
  readonly last: Decimal;
  readonly band: Decimal;
  /** Prices p with low <= p <= high pass: exactly |p / last - 1| <= band, for last > 0. */
  readonly low: Decimal;
  readonly high: Decimal;
}
let lastBounds: BandBounds | undefined;

/**
 * last x (1 - band) and last x (1 + band), remembered for the last (last price, band) pair (the
 * last price changes once per candle, the band never). For last > 0, low <= p <= high is exactly
 * |p / last - 1| <= band; the products are exact at decimal.js's 40 significant digits, and the
 * division the old check rounded to 40 digits cannot land on the band's edge for prices and bands of
 * under ~20 significant digits, so the answers are the same. The denial message computes the ratio
 * as before.
 */
function bandBounds(last: Decimal, band: Decimal): BandBounds {
  const b = lastBounds;
  if (b !== undefined && b.last === last && b.band === band) return b;
  const next = { last, band, low: last.times(ONE.minus(band)), high: last.times(ONE.plus(band)) };
  lastBounds = next;
  return next;
}

function outsideBand(price: Decimal, field: string, last: Decimal, band: Decimal, bounds: BandBounds): RiskDenial | undefined {
  // Written so that NaN compares (NaN) pass, as `off.greaterThan(band)` was false for NaN.
  if (!(compareDecimals(price, bounds.low) < 0 || compareDecimals(price, bounds.high) > 0)) return undefined;
  const off = price.dividedBy(last).minus(1).abs();
  return deny('price_band', `${field} ${price} is ${off.times(100).toDecimalPlaces(2)} % from the last price ${last} (band ${band.times(100)} %)`);
}

/**
 * On the trading balance (spot orders; OCOs too when they trade it, `ocoWallet: 'trading'`):
 * buy: available money >= notional x (1 + feeMargin). Sell: available stock >= amount. No fee
 * margin on sells: the venue takes spot fees from what a trade receives, and a margin would make
 * selling a whole holding impossible.
 */
export const checkBalance: RiskCheck = (intent, ctx, limits) => {
  if (limits.checkBalance === false) return undefined;
  // An OCO margined on the collateral account does not touch the trading balance.
  if (intent.kind === 'oco' && (ctx.ocoWallet ?? 'collateral') === 'collateral') return undefined;
  const info = ctx.marketInfo;
  if (intent.side === 'buy') {
    const money = info?.money ?? (intent.market.split('_')[1] as string);
    const notional = intentNotional(intent);
    const margin = limits.feeMargin;
    const need = margin === undefined || margin.isZero() ? notional : notional.times(feeFactor(margin));
    const have = ctx.balances[money]?.available ?? ZERO;
    return compareDecimals(have, need) < 0 ? deny('balance', `buy needs ${need} ${money} (fees included), available ${have}`) : undefined;
  }
  const stock = info?.stock ?? (intent.market.split('_')[0] as string);
  const have = ctx.balances[stock]?.available ?? ZERO;
  return compareDecimals(have, intent.amount) < 0 ? deny('balance', `sell needs ${intent.amount} ${stock}, available ${have}`) : undefined;
};

let lastMargin: Decimal | undefined;
let lastFactor: Decimal = ONE;

/** 1 + feeMargin, remembered for the last margin instance (limits are long-lived objects). */
function feeFactor(margin: Decimal): Decimal {
  if (margin !== lastMargin) {
    lastFactor = ONE.plus(margin);
    lastMargin = margin;
  }
  return lastFactor;
}

/** The venue's own minimums, checked before sending (it would reject anyway). Needs marketInfo. */
export const checkMarketMinimums: RiskCheck = (intent, ctx) => {
  const info = ctx.marketInfo;
  if (info === undefined) return undefined;
  if (!info.tradesEnabled) return deny('market_minimums', `trading is disabled on ${intent.market}`);
  if (compareDecimals(intent.amount, info.minAmount) < 0) return deny('market_minimums', `amount ${intent.amount} is below the minimum ${info.minAmount}`);
  const total = productOf(intent.amount, intent.price);
  if (compareDecimals(total, info.minTotal) < 0) return deny('market_minimums', `total ${total} is below the minimum ${info.minTotal}`);
  if (compareDecimals(info.maxTotal, ZERO) > 0 && compareDecimals(total, info.maxTotal) > 0) return deny('market_minimums', `total ${total} is above the maximum ${info.maxTotal}`);
  return undefined;
};

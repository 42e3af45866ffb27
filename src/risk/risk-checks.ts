import { Decimal } from '../domain/decimal';
import type { OcoIntent, StopLimitIntent } from '../domain/intent';
import type { Balances, MarketInfo } from '../domain/market';
import type { OpenOrderView } from '../strategy/open-order';
import type { MarketRiskLimits } from './risk-limits';

/** Names of the pre-trade rules; a denial carries one (the executor's OrderDenied event too). */
export type RiskRule =
  | 'trading_state' | 'daily_loss_limit' | 'price_band' | 'max_order_notional' | 'max_market_notional'
  | 'max_open_orders' | 'balance' | 'market_minimums';

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
  readonly balances: Balances;
  /** Every open order of ours ON THIS MARKET, all strategies (an OCO is one view). */
  readonly openOrders: readonly OpenOrderView[];
  /** Precision, minimums and currency names; without it, currencies come from the market name. */
  readonly marketInfo?: MarketInfo | undefined;
}

export type OrderIntent = StopLimitIntent | OcoIntent;
export type RiskCheck = (intent: OrderIntent, ctx: RiskContext, limits: MarketRiskLimits) => RiskDenial | undefined;

export function deny(rule: RiskRule, message: string): RiskDenial {
  return { allowed: false, rule, message };
}

/** Worst-case money value of an order: amount x the highest price it may execute at. */
export function intentNotional(intent: OrderIntent): Decimal {
  const price = intent.kind === 'oco' ? Decimal.max(intent.price, intent.stopLimitPrice) : intent.price;
  return intent.amount.times(price);
}

function viewNotional(view: OpenOrderView): Decimal {
  return view.amount.times(view.stopLimitPrice === undefined ? view.price : Decimal.max(view.price, view.stopLimitPrice));
}

export const checkOrderNotional: RiskCheck = (intent, _ctx, limits) => {
  const max = limits.maxOrderNotional;
  if (max === undefined) return undefined;
  const notional = intentNotional(intent);
  return notional.greaterThan(max) ? deny('max_order_notional', `order notional ${notional} exceeds ${max} on ${intent.market}`) : undefined;
};

export const checkMarketNotional: RiskCheck = (intent, ctx, limits) => {
  const max = limits.maxMarketNotional;
  if (max === undefined) return undefined;
  let total = intentNotional(intent);
  for (const o of ctx.openOrders) if (o.market === intent.market) total = total.plus(viewNotional(o));
  return total.greaterThan(max) ? deny('max_market_notional', `open notional on ${intent.market} would be ${total}, limit ${max}`) : undefined;
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
  if (last === undefined || !last.greaterThan(0)) return deny('price_band', `no last price known for ${intent.market}: cannot check the price band`);
  const prices: [string, Decimal][] = [['price', intent.price], ['activationPrice', intent.activationPrice]];
  if (intent.kind === 'oco') prices.push(['stopLimitPrice', intent.stopLimitPrice]);
  for (const [field, price] of prices) {
    const off = price.dividedBy(last).minus(1).abs();
    if (off.greaterThan(band)) {
      return deny('price_band', `${field} ${price} is ${off.times(100).toDecimalPlaces(2)} % from the last price ${last} (band ${band.times(100)} %)`);
    }
  }
  return undefined;
};

/**
 * Buy: available money >= notional x (1 + feeMargin). Sell: available stock >= amount. No fee
 * margin on sells: the venue takes spot fees from what a trade receives, and a margin would make
 * selling a whole holding impossible.
 */
export const checkBalance: RiskCheck = (intent, ctx, limits) => {
  if (limits.checkBalance === false) return undefined;
  const [stockFromName, moneyFromName] = intent.market.split('_') as [string, string];
  const stock = ctx.marketInfo?.stock ?? stockFromName;
  const money = ctx.marketInfo?.money ?? moneyFromName;
  if (intent.side === 'buy') {
    const need = intentNotional(intent).times(new Decimal(1).plus(limits.feeMargin ?? 0));
    const have = ctx.balances[money]?.available ?? new Decimal(0);
    return have.lessThan(need) ? deny('balance', `buy needs ${need} ${money} (fees included), available ${have}`) : undefined;
  }
  const have = ctx.balances[stock]?.available ?? new Decimal(0);
  return have.lessThan(intent.amount) ? deny('balance', `sell needs ${intent.amount} ${stock}, available ${have}`) : undefined;
};

/** The venue's own minimums, checked before sending (it would reject anyway). Needs marketInfo. */
export const checkMarketMinimums: RiskCheck = (intent, ctx) => {
  const info = ctx.marketInfo;
  if (info === undefined) return undefined;
  if (!info.tradesEnabled) return deny('market_minimums', `trading is disabled on ${intent.market}`);
  if (intent.amount.lessThan(info.minAmount)) return deny('market_minimums', `amount ${intent.amount} is below the minimum ${info.minAmount}`);
  const total = intent.amount.times(intent.price);
  if (total.lessThan(info.minTotal)) return deny('market_minimums', `total ${total} is below the minimum ${info.minTotal}`);
  if (info.maxTotal.greaterThan(0) && total.greaterThan(info.maxTotal)) return deny('market_minimums', `total ${total} is above the maximum ${info.maxTotal}`);
  return undefined;
};

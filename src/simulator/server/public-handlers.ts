import { checkRequest } from '../../exchange/request-rules';
import type { Interval } from '../../domain/candle';
import type { MarketInfo } from '../../domain/market';
import type { SimEngine } from '../engine/sim-engine';
import { buildKlines } from '../market/klines';
import type { MarketFeed } from '../market/market-feed';

/**
 * Public GET endpoints: kline (v1 shapes, 1-second cache), ping, time, markets. Each returns
 * [HTTP status, JSON body].
 */
export interface PublicContext {
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly query: URLSearchParams;
  /** Market clock, Unix seconds. */
  readonly marketNow: number;
  /** Wall clock, Unix ms. */
  readonly wallNowMs: number;
}

export type PublicAnswer = readonly [number, unknown];

/** The markets endpoint's row: fees back to the venue's percent, precisions as strings. */
export function marketJson(m: MarketInfo): Record<string, unknown> {
  return {
    name: m.name, stock: m.stock, money: m.money,
    stockPrec: String(m.stockPrec), moneyPrec: String(m.moneyPrec), feePrec: String(m.feePrec),
    makerFee: m.makerFee.times(100).toString(), takerFee: m.takerFee.times(100).toString(),
    minAmount: m.minAmount.toString(), minTotal: m.minTotal.toString(), maxTotal: m.maxTotal.toString(),
    tradesEnabled: m.tradesEnabled, isCollateral: m.isCollateral, type: m.type,
  };
}

export function klineAnswer(ctx: PublicContext): PublicAnswer {
  const params: Record<string, string> = {};
  for (const [k, v] of ctx.query) params[k] = v;
  const checked = checkRequest('kline', params);
  // The v1 public error shape: HTTP 200, success false, field messages in `message`.
  if (!checked.ok) return [200, { success: false, message: checked.fieldErrors, result: null }];
  const q = checked.value;
  const market = String(q['market']);
  const info = ctx.engine.market(market);
  const source = ctx.feed.source(market);
  if (info === undefined || source === undefined) {
    return [200, { success: false, message: { market: ['Market is not available.'] }, result: null }];
  }
  const result = buildKlines(source, info, ctx.marketNow, {
    interval: q['interval'] as Interval | undefined,
    start: q['start'] as number | undefined,
    end: q['end'] as number | undefined,
    limit: q['limit'] as number | undefined,
  });
  return [200, { success: true, message: null, result }];
}

export const PUBLIC_HANDLERS = {
  kline: klineAnswer,
  ping: (): PublicAnswer => [200, ['pong']],
  // Wall clock in seconds, as the docs say: clients measure their nonce clock offset from it.
  time: (ctx: PublicContext): PublicAnswer => [200, { time: Math.floor(ctx.wallNowMs / 1000) }],
  markets: (ctx: PublicContext): PublicAnswer => [200, ctx.engine.markets().map(marketJson)],
} as const;

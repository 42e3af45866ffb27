import type { Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import type { MarketInfo } from '../../domain/market';
import { writeShape, type ShapeTable } from '../../exchange/wire/answer-shapes';
import { rowToCandle } from '../../candle-files/csv-candles';
import type { SimEngine } from '../engine/sim-engine';
import { buildKlines } from '../market/klines';
import type { MarketFeed } from '../market/market-feed';

/**
 * Public GET endpoints, each returning [HTTP status, JSON body] from canonical, checked parameters:
 * kline (v1 shape), ping, time, markets, and the routes a venue client such as ccxt's `whitebit`
 * class reads on its way (`loadMarkets` reads the assets, `fetchTicker(s)` the tickers; shapes from
 * exchange-api-extra §5.2).
 */
export interface PublicContext {
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly params: Readonly<Record<string, unknown>>;
  /** Market clock, Unix seconds. */
  readonly marketNow: number;
  /** Wall clock, Unix ms. */
  readonly wallNowMs: number;
  readonly shapes: ShapeTable;
}

export type PublicAnswer = readonly [number, unknown];

/** The markets endpoint's row: fees back to the venue's percent, precisions as strings. */
export function marketJson(m: MarketInfo, shapes: ShapeTable): Record<string, unknown> {
  return writeShape('market', shapes.market, {
    name: m.name, stock: m.stock, money: m.money,
    stockPrec: String(m.stockPrec), moneyPrec: String(m.moneyPrec), feePrec: String(m.feePrec),
    makerFee: m.makerFee.times(100).toString(), takerFee: m.takerFee.times(100).toString(),
    minAmount: m.minAmount.toString(), minTotal: m.minTotal.toString(), maxTotal: m.maxTotal.toString(),
    tradesEnabled: m.tradesEnabled, isCollateral: m.isCollateral, type: m.type,
  });
}

/** The v1 public envelope (kline, v1 ticker). Errors come in it too, with HTTP 200. */
export function v1Envelope(shapes: ShapeTable, success: boolean, message: unknown, result: unknown): Record<string, unknown> {
  return writeShape('v1Envelope', shapes.v1Envelope, { success, message, result });
}

function kline(ctx: PublicContext): PublicAnswer {
  const q = ctx.params;
  const market = String(q['market']);
  const info = ctx.engine.market(market);
  const source = ctx.feed.source(market);
  if (info === undefined || source === undefined) return [200, v1Envelope(ctx.shapes, false, { market: ['Market is not available.'] }, null)];
  const result = buildKlines(source, info, ctx.marketNow, {
    interval: q['interval'] as Interval | undefined,
    start: q['start'] as number | undefined,
    end: q['end'] as number | undefined,
    limit: q['limit'] as number | undefined,
  });
  if ((q['interval'] ?? '1h') === '1m') {
    for (let i = 0; i < result.length; i++) {
      const row = result[i]!;
      const patch = ctx.feed.misservedValues(market, row[0]);
      // Wire row: [time, open, close, high, low, volume, volumeMoney].
      if (patch !== undefined) result[i] = [row[0], patch.open ?? row[1], patch.close ?? row[2], patch.high ?? row[3], patch.low ?? row[4], row[5], row[6]];
    }
  }
  return [200, v1Envelope(ctx.shapes, true, null, result)];
}

/** 24 h summary of one market from its 1m rows up to the market clock. */
function summary(engine: SimEngine, feed: MarketFeed, name: string, now: number) {
  const info = engine.market(name);
  const rows = feed.source(name)?.rowsBetween(Math.floor(now) - 86_400, Math.floor(now) - 59) ?? [];
  let open: Decimal | undefined;
  let high = new Decimal(0);
  let low: Decimal | undefined;
  let volume = new Decimal(0);
  let deal = new Decimal(0);
  for (const row of rows) {
    const c = rowToCandle(row);
    open ??= c.open;
    high = Decimal.max(high, c.high);
    low = low === undefined ? c.low : Decimal.min(low, c.low);
    volume = volume.plus(c.volume);
    deal = deal.plus(c.volumeMoney);
  }
  const last = engine.lastPrice(name) ?? open ?? new Decimal(0);
  const change = open === undefined || open.isZero() ? new Decimal(0) : last.minus(open).dividedBy(open).times(100);
  const p = info?.moneyPrec ?? 2;
  return {
    open: (open ?? last).toFixed(p), high: high.toFixed(p), low: (low ?? last).toFixed(p), last: last.toFixed(p),
    volume: volume.toString(), deal: deal.toDecimalPlaces(8).toString(), change: change.toFixed(2),
  };
}

export const PUBLIC_HANDLERS = {
  kline,
  ping: (): PublicAnswer => [200, ['pong']],
  // Wall clock in seconds, as the docs say: clients measure their nonce clock offset from it.
  time: (ctx: PublicContext): PublicAnswer => [200, writeShape('time', ctx.shapes.time, { time: Math.floor(ctx.wallNowMs / 1000) })],
  markets: (ctx: PublicContext): PublicAnswer => [200, ctx.engine.markets().map((m) => marketJson(m, ctx.shapes))],
  assets: ({ engine }: PublicContext): PublicAnswer => {
    const out: Record<string, unknown> = {};
    for (const m of engine.markets()) {
      for (const ticker of [m.stock, m.money]) {
        out[ticker] = {
          name: ticker, unified_cryptoasset_id: 0, can_withdraw: true, can_deposit: true, min_withdraw: '0', max_withdraw: '0',
          maker_fee: m.makerFee.times(100).toString(), taker_fee: m.takerFee.times(100).toString(), min_deposit: '0', max_deposit: '0',
        };
      }
    }
    return [200, out];
  },
  tickers: ({ engine, feed, marketNow }: PublicContext): PublicAnswer => {
    const out: Record<string, unknown> = {};
    for (const m of engine.markets()) {
      const s = summary(engine, feed, m.name, marketNow);
      out[m.name] = { base_id: 0, quote_id: 0, last_price: s.last, quote_volume: s.deal, base_volume: s.volume, isFrozen: false, change: s.change };
    }
    return [200, out];
  },
  tickerV1: ({ engine, feed, params, marketNow, shapes }: PublicContext): PublicAnswer => {
    const name = String(params['market']);
    if (engine.market(name) === undefined) return [200, v1Envelope(shapes, false, { market: ['Market is not available.'] }, null)];
    const s = summary(engine, feed, name, marketNow);
    return [200, v1Envelope(shapes, true, null, { open: s.open, bid: s.last, ask: s.last, low: s.low, high: s.high, last: s.last, volume: s.volume, deal: s.deal, change: s.change })];
  },
} as const;

export type PublicEndpointId = keyof typeof PUBLIC_HANDLERS;

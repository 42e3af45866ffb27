import { z } from 'zod';
import { Decimal } from '../../domain/decimal';
import { clientOrderId, market, positiveDecimal, side } from '../../exchange/http/request-fields';
import type { LimitId } from '../../limiter/limits';
import { rowToCandle } from '../../market-data/csv-candles';
import type { SimEngine } from '../engine/sim-engine';
import type { MarketFeed } from '../market/market-feed';
import type { PublicAnswer } from './public-handlers';
import { orderJson } from './wire-format';

/**
 * Routes outside tradebot's endpoint table that a widely used client (ccxt's `whitebit` class) calls
 * on its way to the endpoints we care about: `loadMarkets` also fetches `/api/v4/public/assets`,
 * `fetchTicker(s)` the tickers, and a plain `createOrder(limit)` goes to `order/new`. Serving them lets
 * such a client run against the simulator unchanged. Shapes follow exchange-api-extra §5.2, §6.1.
 */
export interface ExtraPublicRoute {
  readonly limit: LimitId;
  readonly answer: (engine: SimEngine, feed: MarketFeed, query: URLSearchParams, marketNow: number) => PublicAnswer;
}

export interface ExtraPrivateRoute {
  readonly limit: LimitId;
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly handle: (engine: SimEngine, apiKey: string, params: Readonly<Record<string, unknown>>) => unknown;
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

export const EXTRA_PUBLIC: Readonly<Record<string, ExtraPublicRoute>> = {
  '/api/v4/public/assets': {
    limit: 'public',
    answer: (engine) => {
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
  },
  '/api/v4/public/ticker': {
    limit: 'public',
    answer: (engine, feed, _query, now) => {
      const out: Record<string, unknown> = {};
      for (const m of engine.markets()) {
        const s = summary(engine, feed, m.name, now);
        out[m.name] = { base_id: 0, quote_id: 0, last_price: s.last, quote_volume: s.deal, base_volume: s.volume, isFrozen: false, change: s.change };
      }
      return [200, out];
    },
  },
  '/api/v1/public/ticker': {
    limit: 'kline',
    answer: (engine, feed, query, now) => {
      const name = query.get('market') ?? '';
      if (engine.market(name) === undefined) return [200, { success: false, message: { market: ['Market is not available.'] }, result: null }];
      const s = summary(engine, feed, name, now);
      return [200, { success: true, message: null, result: { open: s.open, bid: s.last, ask: s.last, low: s.low, high: s.high, last: s.last, volume: s.volume, deal: s.deal, change: s.change } }];
    },
  },
};

export const EXTRA_PRIVATE: Readonly<Record<string, ExtraPrivateRoute>> = {
  '/api/v4/order/new': {
    limit: 'orders',
    schema: z.object({
      market, side, amount: positiveDecimal('amount'), price: positiveDecimal('price'),
      clientOrderId: clientOrderId.optional(), client_order_id: clientOrderId.optional(),
      postOnly: z.boolean().optional(), ioc: z.boolean().optional(),
    }),
    handle: (engine, apiKey, p) => orderJson(engine.placeLimit(apiKey, {
      market: String(p['market']), side: p['side'] === 'buy' ? 'buy' : 'sell',
      amount: new Decimal(String(p['amount'])), price: new Decimal(String(p['price'])),
      clientOrderId: (p['clientOrderId'] ?? p['client_order_id']) as string | undefined,
    })),
  },
};

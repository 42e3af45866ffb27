import { candleOpenTime, type Interval } from '../../domain/candle';
import { buildKlines, type WireKline } from '../market/klines';
import { arity, intParam, marketList, marketParam, unsubscribe, type WsMethod, type WsMethodContext } from './ws-method';
import { invalidArgument, SUCCESS } from './ws-protocol';

/**
 * Public methods: service (ping, time: asyncapi/public/service.yaml), last price
 * (asyncapi/public/lastprice.yaml) and kline (asyncapi/public/kline.yaml).
 */

/**
 * Candle intervals in seconds that the docs list as valid (websocket/market-streams/kline.mdx) and the
 * simulator can build from 1-minute data. Sub-minute, 120 and 172800 are valid on the venue but
 * refused here (docs/simulator.md).
 */
const WS_INTERVALS: ReadonlyMap<number, Interval> = new Map<number, Interval>([
  [60, '1m'], [180, '3m'], [300, '5m'], [900, '15m'], [1800, '30m'], [3600, '1h'], [7200, '2h'], [14_400, '4h'],
  [21_600, '6h'], [43_200, '12h'], [86_400, '1d'], [259_200, '3d'], [604_800, '1w'], [2_592_000, '1M'],
]);

function intervalParam(value: unknown): Interval {
  const interval = Number.isSafeInteger(value) ? WS_INTERVALS.get(value as number) : undefined;
  if (interval === undefined) throw invalidArgument();
  return interval;
}

/** A kline row with its market appended: the 8-element candle tuple of kline.yaml `Candle`. */
export type WsCandle = [...WireKline, string];

/** The candle holding the market clock; none while the data has a gap there (nothing is pushed then). */
export function currentCandle(ctx: Pick<WsMethodContext, 'engine' | 'feed' | 'marketClock'>, market: string, intervalSeconds: number): WsCandle | undefined {
  const info = ctx.engine.market(market);
  const source = ctx.feed.source(market);
  const interval = WS_INTERVALS.get(intervalSeconds);
  if (info === undefined || source === undefined || interval === undefined) return undefined;
  const now = ctx.marketClock.nowMs() / 1000;
  // From the current candle's open: only its own 1m rows are read on each tick (not a default period).
  const row = buildKlines(source, info, now, { interval, start: candleOpenTime(interval, Math.floor(now)), limit: 1 })[0];
  return row === undefined ? undefined : [...row, market];
}

/** The last price as a decimal string in the market's money precision. */
export function lastPriceText(ctx: Pick<WsMethodContext, 'engine'>, market: string): string | undefined {
  const price = ctx.engine.lastPrice(market);
  const info = ctx.engine.market(market);
  return price === undefined || info === undefined ? undefined : price.toFixed(info.moneyPrec);
}

export const MARKET_METHODS: Readonly<Record<string, WsMethod>> = {
  ping: { private: false, run: () => 'pong' },
  // Wall clock, integer Unix seconds (service.yaml `TimeResponse`), like HTTP /time.
  time: { private: false, run: (ctx) => Math.floor(ctx.wallClock.nowMs() / 1000) },

  lastprice_request: {
    private: false,
    run: (ctx, params) => {
      arity(params, 1);
      return lastPriceText(ctx, marketParam(ctx, params[0])) ?? '0';
    },
  },
  lastprice_subscribe: {
    private: false,
    run: (ctx, params) => {
      // "at least one market name is required" (lastprice.mdx)
      if (params.length === 0) throw invalidArgument();
      ctx.conn.subscriptions.lastprice = { markets: [...new Set(marketList(ctx, params))], sent: new Map() };
      return SUCCESS;
    },
  },
  lastprice_unsubscribe: unsubscribe('lastprice', false),

  candles_request: {
    private: false,
    run: (ctx, params) => {
      arity(params, 4);
      const market = marketParam(ctx, params[0]);
      const start = intParam(params[1], 0);
      const end = intParam(params[2], 0);
      const interval = intervalParam(params[3]);
      if (start > end) throw invalidArgument();
      const info = ctx.engine.market(market);
      const source = ctx.feed.source(market);
      if (info === undefined || source === undefined) throw invalidArgument();
      return buildKlines(source, info, ctx.marketClock.nowMs() / 1000, { interval, start, end, limit: Number.MAX_SAFE_INTEGER })
        .map((row): WsCandle => [...row, market]);
    },
  },
  candles_subscribe: {
    private: false,
    run: (ctx, params) => {
      arity(params, 2);
      const market = marketParam(ctx, params[0]);
      intervalParam(params[1]);
      ctx.conn.subscriptions.candles = { market, intervalSeconds: params[1] as number };
      return SUCCESS;
    },
  },
  candles_unsubscribe: unsubscribe('candles', false),
};

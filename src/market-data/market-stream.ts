import type { MarketClock } from '../core/clock';
import type { Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import { parseCandleTicks, parseLastPrice } from '../exchange/stream/stream-frames';
import { candleCloseTime } from './candle-clock';

/**
 * Watches one `candles_subscribe` connection (one market and interval per connection, kline.mdx)
 * for a rollover: the candle being built changed its open time, so the previous one closed. The
 * stream has no "closed" flag and its values are not the closed bar: it is only a trigger for the
 * REST kline fetch, held until `cacheMs` after the close on the market clock (the venue caches kline
 * answers for 1 s; an earlier fetch may return the bar as it was before its last second).
 */
export class CandleRolloverWatch {
  private lastTime: number | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly market: MarketName,
    readonly interval: Interval,
    private readonly o: {
      readonly clock: MarketClock;
      readonly cacheMs: number;
      /** The candle opened at `openTime` closed: fetch it. */
      readonly onClosed: (market: MarketName, interval: Interval, openTime: number) => void;
      readonly onInvalid?: (reason: string) => void;
    },
  ) {}

  /** A push of this connection. Never throws. */
  onPush(method: string, params: readonly unknown[]): void {
    if (method !== 'candles_update') return;
    const ticks = parseCandleTicks(params);
    if (ticks === undefined) return this.o.onInvalid?.('bad candles_update');
    for (const tick of ticks) {
      if (tick.market !== this.market) continue;
      const previous = this.lastTime;
      if (previous !== undefined && tick.time <= previous) continue;
      this.lastTime = tick.time;
      if (previous !== undefined) this.closed(previous);
    }
  }

  /** A new connection: rollovers are counted from its first push (what was missed, the scheduled poll fetches). */
  reset(): void {
    this.lastTime = undefined;
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private closed(openTime: number): void {
    const waitMarketMs = candleCloseTime(this.interval, openTime) * 1000 + this.o.cacheMs - this.o.clock.nowMs();
    const speed = this.o.clock.speed > 0 ? this.o.clock.speed : 1;
    if (waitMarketMs <= 0) {
      this.o.onClosed(this.market, this.interval, openTime);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.o.onClosed(this.market, this.interval, openTime);
    }, Math.ceil(waitMarketMs / speed));
    timer.unref();
    this.timers.add(timer);
  }
}

/**
 * The last prices of `lastprice_update`, each with the wall time it arrived. A price older than
 * `maxAgeMs` is not given out: the risk band then falls back to the last candle close.
 */
export class LastPriceBook {
  private readonly prices = new Map<MarketName, { readonly price: Decimal; readonly atMs: number }>();

  constructor(private readonly maxAgeMs: number, private readonly now: () => number = Date.now) {}

  onPush(method: string, params: readonly unknown[], onInvalid?: (reason: string) => void): void {
    if (method !== 'lastprice_update') return;
    const parsed = parseLastPrice(params);
    if (parsed === undefined) return onInvalid?.('bad lastprice_update');
    this.prices.set(parsed.market, { price: parsed.price, atMs: this.now() });
  }

  get(market: MarketName): Decimal | undefined {
    const entry = this.prices.get(market);
    return entry !== undefined && this.now() - entry.atMs <= this.maxAgeMs ? entry.price : undefined;
  }
}

import type { SimEngine } from '../engine/sim-engine';
import { balancesOf } from './ws-account-methods';
import type { WsConnection } from './ws-connection';
import { currentCandle, lastPriceText } from './ws-market-methods';
import type { WsMethodContext } from './ws-method';

/** How often the periodic channels push (the venue's documented update intervals). */
export interface WsTickIntervals {
  /** kline.mdx: the current candle every 0.5 s. */
  readonly candlesMs: number;
  /** lastprice.mdx: every 1 s when the price changed. */
  readonly lastpriceMs: number;
  /** balance-spot.mdx: every 1 s when a balance changed, only the changed assets. */
  readonly balanceMs: number;
}

export const DEFAULT_TICK_INTERVALS: WsTickIntervals = { candlesMs: 500, lastpriceMs: 1000, balanceMs: 1000 };

type TickContext = Pick<WsMethodContext, 'engine' | 'feed' | 'marketClock'> & { readonly engine: SimEngine };

/**
 * The timer-driven pushes: candles, last prices and spot balances. Each tick first brings the engine up
 * to the market clock (`sync`), so what is pushed is what an HTTP request would see now.
 */
export class WsTicks {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly ctx: TickContext,
    private readonly connections: () => Iterable<WsConnection>,
    private readonly sync: () => void,
    intervals: WsTickIntervals,
  ) {
    this.every(intervals.candlesMs, () => this.candles());
    this.every(intervals.lastpriceMs, () => this.lastprices());
    this.every(intervals.balanceMs, () => this.balances());
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
  }

  private every(ms: number, run: () => void): void {
    const timer = setInterval(() => {
      // No connection, no work: the HTTP-only simulator pays nothing for the WebSocket timers.
      if (this.connections()[Symbol.iterator]().next().done === true) return;
      this.sync();
      run();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private candles(): void {
    for (const conn of this.connections()) {
      const sub = conn.subscriptions.candles;
      if (sub === undefined) continue;
      const candle = currentCandle(this.ctx, sub.market, sub.intervalSeconds);
      if (candle !== undefined) conn.push('candles_update', [candle]);
    }
  }

  private lastprices(): void {
    for (const conn of this.connections()) {
      const sub = conn.subscriptions.lastprice;
      if (sub === undefined) continue;
      for (const market of sub.markets) {
        const price = lastPriceText(this.ctx, market);
        if (price === undefined || sub.sent.get(market) === price) continue;
        sub.sent.set(market, price);
        conn.push('lastprice_update', [market, price]);
      }
    }
  }

  /** Pushes, per connection, only the subscribed assets whose balance differs from what it last saw. */
  private balances(): void {
    for (const conn of this.connections()) {
      const sub = conn.subscriptions.balanceSpot;
      if (sub === undefined || conn.apiKey === undefined) continue;
      const changed: Record<string, unknown> = {};
      let any = false;
      for (const [asset, balance] of Object.entries(balancesOf(this.ctx, conn.apiKey, sub.assets))) {
        const text = JSON.stringify(balance);
        if (sub.seen.get(asset) === text) continue;
        sub.seen.set(asset, text);
        changed[asset] = balance;
        any = true;
      }
      if (any) conn.push('balanceSpot_update', [changed]);
    }
  }
}

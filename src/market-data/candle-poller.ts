import type { Clock } from '../core/clock';
import { candleOpenTime, intervalSeconds, type Candle, type Interval } from '../domain/candle';
import { ConfigError } from '../domain/errors';
import type { MarketName } from '../domain/market';
import type { ExchangeClient } from '../exchange/exchange-client';
import {
  addCandleSteps, candleCloseTime, candleSteps, isCandleClosed, lastClosedCandleOpenTime, previousCandleOpenTime,
} from './candle-clock';

/** Where a delivered candle came from. */
export type CandleSource = 'warm-up' | 'live' | 'back-fill';

/** A closed candle, delivered once, in time order. */
export interface ClosedCandle {
  readonly type: 'candle';
  readonly market: MarketName;
  readonly interval: Interval;
  readonly candle: Candle;
  /** Closed more than `staleAfterMs` before now: feed indicators with it, never trade on it. */
  readonly stale: boolean;
  readonly source: CandleSource;
}

/** An already delivered candle came back with different values. It is not delivered again. */
export interface CandleRevised {
  readonly type: 'revision';
  readonly market: MarketName;
  readonly interval: Interval;
  readonly time: number;
  readonly previous: Candle;
  readonly current: Candle;
}

/** Candles from `from` to `to` (open times, inclusive) do not exist on the exchange (an outage). Reported once. */
export interface CandleGap {
  readonly type: 'gap';
  readonly market: MarketName;
  readonly interval: Interval;
  readonly from: number;
  readonly to: number;
  readonly missing: number;
}

/** After a poll, the newest closed candle known is older than `staleAfterMs` (or there is none). */
export interface CandlesStale {
  readonly type: 'stale';
  readonly market: MarketName;
  readonly interval: Interval;
  /** Open time of the newest delivered candle, if any. */
  readonly newestTime: number | undefined;
  /** now minus the newest candle's close, in ms (Infinity when none). */
  readonly ageMs: number;
}

export type CandlePollerEvent = ClosedCandle | CandleRevised | CandleGap | CandlesStale;

export interface CandlePollerOptions {
  readonly market: MarketName;
  readonly interval: Interval;
  readonly client: Pick<ExchangeClient, 'fetchCandles'>;
  /** The exchange's "now" (the market clock in paper mode). */
  readonly clock: Clock;
  /** Awaited for every event, so delivery is ordered and a slow consumer slows the poller down. */
  readonly onEvent: (event: CandlePollerEvent) => void | Promise<void>;
  /** Candles per kline request, 1..1440 (default 1440, the API's maximum). */
  readonly pageSize?: number;
  /** Age (now minus close) past which a candle is stale. Default: one interval. */
  readonly staleAfterMs?: number;
  /** Delivered candles remembered for revision detection (default 16). Bounds memory. */
  readonly revisionMemory?: number;
}

/** What one poll or warm-up did. */
export interface PollSummary {
  readonly delivered: number;
  readonly revisions: number;
  readonly gaps: number;
  readonly requests: number;
  readonly stale: boolean;
}

const MAX_PAGE = 1440;

interface Counters {
  delivered: number;
  revisions: number;
  gaps: number;
  requests: number;
}

/**
 * Turns kline answers for one (market, interval) into a stream of closed candles: the still-open
 * last row is dropped, nothing is delivered twice or out of order, a changed value for a delivered
 * time is a revision, holes are back-filled (paged, <= 1440 per request) before newer candles are
 * delivered, and a hole the back-fill cannot fill is reported once as a gap. Calls are serialized:
 * a poll started while another runs waits for it.
 */
export class CandlePoller {
  readonly market: MarketName;
  readonly interval: Interval;
  private readonly pageSize: number;
  private readonly staleAfterMs: number;
  private readonly revisionMemory: number;
  /** Open time of the next candle to deliver; undefined until the first warm-up or poll. */
  private nextExpected: number | undefined;
  private lastDelivered: Candle | undefined;
  /** Recently delivered candles by time, oldest first (Map keeps insertion order). */
  private readonly recent = new Map<number, Candle>();
  private chain: Promise<unknown> = Promise.resolve();
  private stale = false;

  constructor(private readonly options: CandlePollerOptions) {
    this.market = options.market;
    this.interval = options.interval;
    this.pageSize = options.pageSize ?? MAX_PAGE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE) {
      throw new ConfigError(`pageSize must be an integer in 1..${MAX_PAGE}`, { path: 'marketData.pageSize' });
    }
    this.staleAfterMs = options.staleAfterMs ?? intervalSeconds(options.interval) * 1000;
    this.revisionMemory = Math.max(1, options.revisionMemory ?? 16);
  }

  /**
   * Delivers the last `count` closed candles (paging when count > 1440) and sets the cursor there.
   * Call before the first poll; a later call only catches up from the cursor.
   */
  warmUp(count: number, signal?: AbortSignal): Promise<PollSummary> {
    if (!Number.isInteger(count) || count < 1) {
      throw new ConfigError(`warm-up count must be a positive integer, got ${count}`, { path: 'marketData.warmUp' });
    }
    return this.serialize(async () => {
      const nowMs = this.options.clock.nowMs();
      const newest = lastClosedCandleOpenTime(this.interval, nowMs);
      this.nextExpected ??= addCandleSteps(this.interval, newest, -(count - 1));
      return this.catchUp(nowMs, newest, 'warm-up', signal);
    });
  }

  /** Fetches and delivers every candle closed since the last one delivered. Without a warm-up, starts at the newest. */
  poll(signal?: AbortSignal): Promise<PollSummary> {
    return this.serialize(async () => {
      const nowMs = this.options.clock.nowMs();
      const newest = lastClosedCandleOpenTime(this.interval, nowMs);
      this.nextExpected ??= newest;
      return this.catchUp(nowMs, newest, 'live', signal);
    });
  }

  /** The cursor and the stale flag, for health checks and metrics. */
  status(): { readonly lastCandleTime: number | undefined; readonly nextExpected: number | undefined; readonly stale: boolean } {
    return { lastCandleTime: this.lastDelivered?.time, nextExpected: this.nextExpected, stale: this.stale };
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async catchUp(nowMs: number, newest: number, source: CandleSource, signal?: AbortSignal): Promise<PollSummary> {
    const counters: Counters = { delivered: 0, revisions: 0, gaps: 0, requests: 0 };
    // Start one candle early: re-reading the last delivered candle is how a late revision shows up.
    const from = this.lastDelivered?.time ?? this.nextExpected ?? newest;
    await this.sweep(from, newest, nowMs, counters, signal, async (row) => this.accept(row, nowMs, source, true, counters, signal));
    return { ...counters, stale: await this.checkStale(nowMs) };
  }

  /** Pages over [from, to] (open times) in windows of at most pageSize candles, ascending. */
  private async sweep(
    from: number, to: number, nowMs: number, counters: Counters, signal: AbortSignal | undefined,
    each: (row: Candle) => Promise<void>,
  ): Promise<void> {
    let pageStart = from;
    while (pageStart <= to && !signal?.aborted) {
      const remaining = candleSteps(this.interval, pageStart, to) + 1;
      const count = Math.min(this.pageSize, remaining);
      const pageEnd = addCandleSteps(this.interval, pageStart, count - 1);
      const rows = await this.fetchWindow(pageStart, pageEnd, count, nowMs, counters);
      for (const row of rows) {
        if (signal?.aborted) return;
        await each(row);
      }
      pageStart = addCandleSteps(this.interval, pageEnd, 1);
    }
  }

  /** One kline request for the candles opening in [start, end]; returns only closed, aligned rows in the window, sorted. */
  private async fetchWindow(start: number, end: number, count: number, nowMs: number, counters: Counters): Promise<Candle[]> {
    counters.requests += 1;
    // `end` is the last second of the window's last candle: whether the exchange treats `end` as
    // inclusive or exclusive, that candle is included and the next one is not.
    const rows = await this.options.client.fetchCandles({
      market: this.market, interval: this.interval, start, end: candleCloseTime(this.interval, end) - 1, limit: count,
    });
    return rows
      .filter((r) => r.time >= start && r.time <= end && candleOpenTime(this.interval, r.time) === r.time)
      .filter((r) => isCandleClosed(this.interval, r.time, nowMs))
      .sort((a, b) => a.time - b.time);
  }

  private async accept(
    row: Candle, nowMs: number, source: CandleSource, backFill: boolean, counters: Counters, signal?: AbortSignal,
  ): Promise<void> {
    const expected = this.nextExpected ?? row.time;
    if (row.time < expected) {
      await this.checkRevision(row, counters);
      return;
    }
    if (row.time > expected && backFill) {
      // A hole before this row: fetch exactly the hole before anything newer is delivered. Rows of
      // the back-fill are accepted without a further back-fill, so holes inside it become gaps.
      const holeEnd = previousCandleOpenTime(this.interval, row.time);
      await this.sweep(expected, holeEnd, nowMs, counters, signal,
        async (r) => { if (r.time <= holeEnd) await this.accept(r, nowMs, 'back-fill', false, counters, signal); });
      if (signal?.aborted) return;
    }
    const stillExpected = this.nextExpected ?? row.time;
    if (row.time > stillExpected) await this.reportGap(stillExpected, previousCandleOpenTime(this.interval, row.time), counters);
    await this.deliver(row, nowMs, source, counters);
  }

  private async checkRevision(row: Candle, counters: Counters): Promise<void> {
    const previous = this.recent.get(row.time);
    // Older than what we remember (or a hole reported as a gap that later filled): ignored, since
    // delivering it now would break the time order.
    if (previous === undefined || sameCandle(previous, row)) return;
    this.recent.set(row.time, row);
    if (this.lastDelivered?.time === row.time) this.lastDelivered = row;
    counters.revisions += 1;
    await this.options.onEvent({
      type: 'revision', market: this.market, interval: this.interval, time: row.time, previous, current: row,
    });
  }

  private async reportGap(from: number, to: number, counters: Counters): Promise<void> {
    counters.gaps += 1;
    this.nextExpected = addCandleSteps(this.interval, to, 1);
    await this.options.onEvent({
      type: 'gap', market: this.market, interval: this.interval, from, to, missing: candleSteps(this.interval, from, to) + 1,
    });
  }

  private async deliver(row: Candle, nowMs: number, source: CandleSource, counters: Counters): Promise<void> {
    // The cursor moves before the consumer runs: if it throws, the candle still counts as
    // delivered (exactly once) and the error propagates to the caller of poll().
    this.nextExpected = addCandleSteps(this.interval, row.time, 1);
    this.lastDelivered = row;
    this.recent.set(row.time, row);
    while (this.recent.size > this.revisionMemory) {
      const oldest = this.recent.keys().next();
      if (oldest.done === true) break;
      this.recent.delete(oldest.value);
    }
    counters.delivered += 1;
    const stale = nowMs - candleCloseTime(this.interval, row.time) * 1000 > this.staleAfterMs;
    await this.options.onEvent({ type: 'candle', market: this.market, interval: this.interval, candle: row, stale, source });
  }

  private async checkStale(nowMs: number): Promise<boolean> {
    const newestTime = this.lastDelivered?.time;
    const ageMs = newestTime === undefined ? Infinity : nowMs - candleCloseTime(this.interval, newestTime) * 1000;
    this.stale = ageMs > this.staleAfterMs;
    if (this.stale) {
      await this.options.onEvent({ type: 'stale', market: this.market, interval: this.interval, newestTime, ageMs });
    }
    return this.stale;
  }
}

function sameCandle(a: Candle, b: Candle): boolean {
  return a.open.eq(b.open) && a.high.eq(b.high) && a.low.eq(b.low) && a.close.eq(b.close)
    && a.volume.eq(b.volume) && a.volumeMoney.eq(b.volumeMoney);
}

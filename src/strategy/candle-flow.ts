import type { Clock } from '../core/clock';
import { candleCloseTime, lastClosedCandleOpenTime } from '../market-data/candle-clock';
import type { Candle, Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { ExchangeClient } from '../exchange/exchange-client';
import type { Logger } from '../log/logger';
import { CandlePoller, type CandlePollerEvent, type ClosedCandle, type PollSummary } from '../market-data/candle-poller';
import type { StampedIntent } from './intent-validation';
import type { CandleHost } from './guest/guest-host';
import type { JobDefinition } from '../jobs/scheduler';
import { candleStep, type CandleStepParts, type StepCandle } from './candle-step';

/** Where tradable intents go (the executor, through its adapter). */
export interface IntentSink {
  submit(intents: readonly StampedIntent[]): Promise<void>;
}

export interface CandleFlowHooks {
  /** A closed candle arrived (metrics: last close, lag). */
  onCandle?(market: MarketName, interval: Interval, closeTimeSec: number, close: Decimal): void;
  /** Intents computed on a stale (live or back-filled) candle were dropped: no trading on old data. */
  onStaleIntents?(intents: readonly StampedIntent[]): void;
  /** A closed candle goes to the strategies now, settled (the drift record of what the daemon acted on). */
  onDelivered?(candle: ClosedCandle): void;
}

export interface CandleFlowOptions {
  readonly host: CandleHost;
  readonly client: Pick<ExchangeClient, 'fetchCandles'>;
  /** The exchange's now: the simulator's market clock in paper mode, wall time live. */
  readonly clock: Clock;
  readonly sink: IntentSink;
  readonly log: Logger;
  /** Closed candles each (market, interval) needs before trading: max warm-up of its strategies. */
  readonly warmupFor: (market: MarketName, interval: Interval) => number;
  readonly klineDelayMs: number;
  /**
   * Runs before a closed candle goes to the strategies: the daemon settles what the exchange did
   * since the last candle, so ctx.openOrders, ctx.events and ctx.position include it. A failure is
   * logged and the candle still goes (strategies must see every candle).
   */
  readonly beforeStrategies?: ((market: MarketName) => Promise<void>) | undefined;
  /** Runs once the candle is settled, before the strategies get it (the kernel's marks: the guardrails). */
  readonly afterSettle?: ((c: StepCandle) => void) | undefined;
  /**
   * After that settlement, before the strategies: the kernel's trailing stops take the candle (THE
   * candle step's `trail`, as in a backtest). A failure is logged and the candle still goes.
   */
  readonly trail?: ((market: MarketName, interval: Interval, candle: Candle) => Promise<void> | undefined) | undefined;
  readonly hooks?: CandleFlowHooks;
  /**
   * True while a healthy market stream triggers the kline fetch of (market, interval) at each close
   * (closed()): the fixed-offset poll then costs no request when that candle is already delivered.
   */
  readonly streamTriggers?: (market: MarketName, interval: Interval) => boolean;
}

/**
 * The candle path of the daemon, per (market, interval) the strategies subscribe to:
 *
 *   kline poll -> CandlePoller (closed, de-duplicated, back-filled, in order) -> strategy host (guests) -> intents -> executor
 *
 * Staleness guard: a candle that closed more than one interval ago still goes to the strategies (their
 * indicators must see every candle), but intents computed on it are dropped, logged and counted.
 * Warm-up candles are history by definition: their intents are dropped silently.
 */
export class CandleFlow {
  private readonly pollers: CandlePoller[] = [];
  private readonly lastClose = new Map<MarketName, Decimal>();
  private readonly log: Logger;

  constructor(private readonly o: CandleFlowOptions) {
    this.log = o.log;
    for (const { market, interval } of o.host.subscriptions()) {
      this.pollers.push(new CandlePoller({
        market, interval, client: o.client, clock: o.clock, onEvent: (e) => this.onEvent(e),
      }));
    }
  }

  /** The last closed candle's close per market (risk: price band reference). */
  lastPrice(market: MarketName): Decimal | undefined {
    return this.lastClose.get(market);
  }

  subscriptions(): readonly { market: MarketName; interval: Interval }[] {
    return this.pollers.map((p) => ({ market: p.market, interval: p.interval }));
  }

  /** Delivers each subscription's warm-up history (nothing is traded on it). */
  async warmUp(signal?: AbortSignal): Promise<PollSummary[]> {
    const out: PollSummary[] = [];
    for (const p of this.pollers) {
      const count = Math.max(1, this.o.warmupFor(p.market, p.interval));
      const summary = await p.warmUp(count, signal);
      this.log.info({ market: p.market, interval: p.interval, candles: summary.delivered, requests: summary.requests }, 'warm-up done');
      out.push(summary);
    }
    return out;
  }

  /** One scheduler job per subscription, polling just after each candle closes. */
  jobs(): JobDefinition[] {
    return this.pollers.map((p) => ({
      name: `klines:${p.market}:${p.interval}`,
      schedule: { kind: 'candle-close', interval: p.interval, pollDelayMs: this.o.klineDelayMs },
      run: async (ctx) => {
        if (this.o.streamTriggers?.(p.market, p.interval) === true && this.caughtUp(p)) return;
        await p.poll(ctx.signal);
      },
    }));
  }

  /**
   * A market stream saw the candle opened at `openTime` close: its REST fetch now instead of at the
   * fixed offset. Nothing when it was already delivered. Errors are logged; the scheduled poll stays.
   */
  async closed(market: MarketName, interval: Interval, openTime: number): Promise<void> {
    const p = this.pollers.find((x) => x.market === market && x.interval === interval);
    if (p === undefined) return;
    const next = p.status().nextExpected;
    if (next === undefined || next > openTime) return;
    await p.poll().then(() => undefined, (err: unknown) => this.log.warn({ err, market, interval }, 'kline fetch after a stream rollover failed; the scheduled poll retries'));
  }

  private caughtUp(p: CandlePoller): boolean {
    const next = p.status().nextExpected;
    return next !== undefined && next > lastClosedCandleOpenTime(p.interval, this.o.clock.nowMs());
  }

  status(): { market: MarketName; interval: Interval; lastCandleTime: number | undefined; stale: boolean }[] {
    return this.pollers.map((p) => ({ market: p.market, interval: p.interval, ...pick(p.status()) }));
  }

  private async onEvent(e: CandlePollerEvent): Promise<void> {
    switch (e.type) {
      case 'candle':
        return this.onClosedCandle(e);
      case 'stale':
        this.log.warn({ market: e.market, interval: e.interval, newestTime: e.newestTime, ageMs: e.ageMs }, 'candles are stale: no trading on this market until fresh candles arrive');
        return;
      case 'gap':
        this.log.warn({ market: e.market, interval: e.interval, from: e.from, to: e.to, missing: e.missing }, 'candle gap at the exchange (outage); moving on');
        return;
      case 'revision':
        this.log.info({ market: e.market, interval: e.interval, candleTime: e.time }, 'delivered candle revised by the exchange (not re-delivered)');
        return;
    }
  }

  private async onClosedCandle(e: ClosedCandle): Promise<void> {
    this.lastClose.set(e.market, e.candle.close);
    this.o.hooks?.onCandle?.(e.market, e.interval, candleCloseTime(e.interval, e.candle.time), e.candle.close);
    await candleStep(this.step, { ...e, warm: e.source === 'warm-up' });
  }

  private readonly step: CandleStepParts<ClosedCandle & StepCandle> = {
    settle: (c) => this.o.beforeStrategies?.(c.market).catch((err: unknown) => this.log.warn({ err, market: c.market, interval: c.interval }, 'orders not settled before the candle')),
    settled: (c) => this.o.afterSettle?.(c),
    trail: (c) => this.o.trail?.(c.market, c.interval, c.candle)?.catch((err: unknown) => this.log.warn({ err, market: c.market, interval: c.interval }, 'trailing stops not moved on the candle')),
    decide: (c) => {
      this.o.hooks?.onDelivered?.(c);
      return this.o.host.handleCandle(c.market, c.interval, c.candle, { warm: c.warm });
    },
    refuse: (c, intents) => {
      if (!c.stale) return false;
      this.log.warn({ market: c.market, interval: c.interval, candleTime: c.candle.time, intents: intents.length, source: c.source }, 'intents dropped: candle older than one interval');
      this.o.hooks?.onStaleIntents?.(intents);
      return true;
    },
    submit: (intents) => this.o.sink.submit(intents),
  };
}

function pick(s: { lastCandleTime: number | undefined; stale: boolean }): { lastCandleTime: number | undefined; stale: boolean } {
  return { lastCandleTime: s.lastCandleTime, stale: s.stale };
}

import { hostname } from 'node:os';
import type { Clock } from '../core/clock';
import type { Balances } from '../domain/market';
import type { SubmitResult } from '../execution/orders/executor';
import type { Logger } from '../log/logger';
import type { ClosedCandle } from '../market-data/candle-poller';
import type { DeploymentLog, RecordedDecision } from '../store/deployment-log-port';
import type { StampedIntent } from '../strategy/intent-validation';

export interface DeploymentRecorderOptions {
  readonly log: DeploymentLog;
  readonly marketClock: Clock;
  readonly wallClock: Clock;
  readonly logger: Logger;
  /** The trading balances as last polled (settled before each candle). */
  readonly balances: () => Balances | undefined;
  /** The collateral account as last polled: what each asset holds. */
  readonly collateral?: (() => Readonly<Record<string, { readonly balance: { toString(): string } }>> | undefined) | undefined;
  /** Wall time between two heartbeats: a SIGKILLed run is taken to have ended at its last one. */
  readonly heartbeatMs: number;
}

/**
 * The daemon's side of the drift check: records what it acted on into the deployment log. Nothing
 * here is awaited by the trading path: each write is queued on the store (Redis keeps one
 * connection's commands in order) and a failure is logged, never thrown, so a slow or absent store
 * cannot delay a candle's orders. The cost is one Redis round trip per candle, intent and heartbeat.
 */
export class DeploymentRecorder {
  readonly runId: string;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly liveVersions = new Map<string, string>();

  constructor(private readonly o: DeploymentRecorderOptions) {
    this.runId = `${hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${process.pid}-${o.wallClock.nowMs()}`;
  }

  /** Marks the run's start and beats until `stop`. */
  async start(): Promise<void> {
    await this.mark('start');
    this.timer = setInterval(() => void this.mark('heartbeat'), this.o.heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.mark('stop');
  }

  /** A closed candle is about to go to the strategies (after settlement), with the balances it meets. */
  onCandle(e: ClosedCandle): void {
    const c = e.candle;
    const marketMs = this.o.marketClock.nowMs();
    this.write(this.o.log.recordCandle({
      market: e.market, interval: e.interval, time: c.time,
      open: c.open.toString(), high: c.high.toString(), low: c.low.toString(), close: c.close.toString(),
      volume: c.volume.toString(), volumeMoney: c.volumeMoney.toString(),
      source: e.source, stale: e.stale, receivedMarketMs: marketMs,
    }));
    const balances = e.source === 'live' ? this.o.balances() : undefined;
    if (balances !== undefined) {
      const text: Record<string, { available: string; freeze: string }> = {};
      for (const [cur, b] of Object.entries(balances)) text[cur] = { available: b.available.toString(), freeze: b.freeze.toString() };
      // Keyed by the candle's open time: the balances its strategies saw (the replay's start at that candle).
      const collateral = this.o.collateral?.();
      const margin = collateral === undefined ? undefined : Object.fromEntries(Object.entries(collateral).map(([cur, b]) => [cur, b.balance.toString()]));
      this.write(this.o.log.recordBalances({ marketMs: c.time * 1000, balances: text, ...(margin === undefined ? {} : { collateral: margin }) }));
    }
  }

  /** What the executor did with one intent (or the error that stopped it). */
  onDecision(stamped: StampedIntent, result: SubmitResult | { readonly outcome: 'error' | 'denied'; readonly rule: string }): void {
    const decision: RecordedDecision = {
      strategy: stamped.strategy, market: stamped.intent.market, candleTime: stamped.candleTime, kind: stamped.intent.kind,
      tag: stamped.intent.kind === 'cancel' ? stamped.intent.clientOrderId : stamped.intent.tag,
      outcome: result.outcome,
      rule: 'rule' in result ? result.rule : undefined,
      clientOrderIds: 'records' in result ? result.records.map((r) => r.clientOrderId) : [],
      marketMs: this.o.marketClock.nowMs(),
    };
    this.write(this.o.log.recordDecision(decision));
  }

  /** The live version of a strategy (at start and after each reload, promotion, rollback): recorded when it changes. */
  onLiveVersion(strategy: string, version: string): void {
    if (this.liveVersions.get(strategy) === version) return;
    this.liveVersions.set(strategy, version);
    this.write(this.o.log.recordVersion({ strategy, version, marketMs: this.o.marketClock.nowMs() }));
  }

  /** Intents dropped by the staleness guard (computed on a candle older than one interval). */
  onStale(intents: readonly StampedIntent[]): void {
    for (const x of intents) this.onDecision(x, { outcome: 'denied', rule: 'stale_candle' });
  }

  private mark(event: 'start' | 'heartbeat' | 'stop'): Promise<void> {
    return this.write(this.o.log.markRun({ runId: this.runId, event, marketMs: this.o.marketClock.nowMs(), atMs: this.o.wallClock.nowMs() }));
  }

  private write(p: Promise<unknown>): Promise<void> {
    return p.then(() => { this.failures = 0; }, (err: unknown) => {
      // One line per outage, not one per candle.
      if (this.failures++ === 0) this.o.logger.warn({ err }, 'drift record not written (the drift check will show this stretch as unrecorded)');
    });
  }
}

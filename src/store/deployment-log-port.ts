import type { Interval } from '../domain/candle';

/**
 * What the daemon acted on, kept for the drift check (docs/drift.md): every closed candle handed to
 * the strategies, exactly as received, what became of each intent, balance snapshots, and the
 * daemon's own runs (start, heartbeat, stop) from which its downtime is derived. A drift run after a
 * restart, or on another replica, reads the same records. Retention is bounded (DeploymentLogLimits).
 *
 * Times: candle times are Unix seconds of market time (the venue's clock, the simulator's market
 * clock in paper mode); every `...MarketMs` is the same clock in ms; `...AtMs` is wall time.
 */
export interface DeploymentLog {
  /** Keeps the first record per (market, interval, open time): what the daemon acted on is never overwritten. True when stored. */
  recordCandle(candle: RecordedCandle): Promise<boolean>;
  /** Recorded candles with from <= open time < to, oldest first. */
  candles(market: string, interval: Interval, fromSec: number, toSec: number): Promise<RecordedCandle[]>;
  recordDecision(decision: RecordedDecision): Promise<void>;
  /** Decisions on candles with from <= candleTime < to, oldest first. */
  decisions(fromSec: number, toSec: number): Promise<RecordedDecision[]>;
  recordBalances(snapshot: RecordedBalances): Promise<void>;
  /** The newest snapshot taken at or before `marketMs`. */
  balancesAt(marketMs: number): Promise<RecordedBalances | undefined>;
  /** The oldest snapshot taken at or after `marketMs`: where the records of a deployment begin. */
  firstBalancesFrom(marketMs: number): Promise<RecordedBalances | undefined>;
  /** A strategy's live version from `marketMs` on (each start, reload, promotion, rollback). */
  recordVersion(v: RecordedVersion): Promise<void>;
  /** The live versions recorded up to `toMarketMs`, oldest first (a window's version at its start is the last one before it). */
  versions(toMarketMs: number): Promise<RecordedVersion[]>;
  /** Start, heartbeat or stop of one daemon run. */
  markRun(mark: RunMark): Promise<void>;
  /** Runs that overlap [fromMarketMs, toMarketMs], oldest first. */
  runs(fromMarketMs: number, toMarketMs: number): Promise<DaemonRun[]>;
}

export type RecordedCandleSource = 'warm-up' | 'live' | 'back-fill';

/** A closed candle as the strategies got it; decimals as text (the exchange's digits, normalised by decimal.js). */
export interface RecordedCandle {
  readonly market: string;
  readonly interval: Interval;
  /** Open time, Unix seconds. */
  readonly time: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
  readonly volumeMoney: string;
  /** warm-up and stale candles feed indicators but are never traded on. */
  readonly source: RecordedCandleSource;
  readonly stale: boolean;
  /** Market time when the daemon received it. */
  readonly receivedMarketMs: number;
}

/** What the executor did with one intent: accepted (or found), or denied by a rule. */
export interface RecordedDecision {
  readonly strategy: string;
  readonly market: string;
  readonly candleTime: number;
  readonly kind: string;
  /** The intent's tag (a cancel: its order's id): two intents of one candle denied by one rule are two records, not one. */
  readonly tag?: string | undefined;
  readonly outcome: 'accepted' | 'existing' | 'canceled' | 'rejected' | 'unknown' | 'denied' | 'error';
  /** The denying rule (risk rule, `lease`, `not_ready`, ...) or the error. */
  readonly rule?: string | undefined;
  readonly clientOrderIds: readonly string[];
  /** Market time when the executor answered: an order sent after its candle's next one opened missed it (latency). */
  readonly marketMs: number;
}

export interface RecordedBalances {
  /** The open time (ms) of the candle these balances went to the strategies with. */
  readonly marketMs: number;
  readonly balances: Readonly<Record<string, { readonly available: string; readonly freeze: string }>>;
  /** The collateral account (where OCOs hold their margin): what each asset holds. */
  readonly collateral?: Readonly<Record<string, string>> | undefined;
}

/** Which version of a strategy traded from when: a drift replay of another version explains no difference. */
export interface RecordedVersion {
  readonly strategy: string;
  readonly marketMs: number;
  /** The content hash of its module sources (the journal's strategyVersion). */
  readonly version: string;
}

export interface RunMark {
  readonly runId: string;
  readonly event: 'start' | 'heartbeat' | 'stop';
  readonly marketMs: number;
  readonly atMs: number;
}

/** One daemon process from start to its last sign of life. A SIGKILLed run has no `stoppedMarketMs`: it ended at its last heartbeat. */
export interface DaemonRun {
  readonly runId: string;
  readonly startedMarketMs: number;
  readonly startedAtMs: number;
  readonly lastSeenMarketMs: number;
  readonly lastSeenAtMs: number;
  readonly stoppedMarketMs?: number | undefined;
}

/** Bounded retention: records older than `retentionSec` of market time, or past `maxEntries` per list, are dropped. */
export interface DeploymentLogLimits {
  readonly retentionSec: number;
  readonly maxEntries: number;
}

export const DEFAULT_DEPLOYMENT_LOG_LIMITS: DeploymentLogLimits = { retentionSec: 14 * 86_400, maxEntries: 50_000 };

export function candleLine(c: RecordedCandle): string {
  return JSON.stringify(c);
}

export function runFromFields(runId: string, f: Readonly<Record<string, string>>): DaemonRun | undefined {
  if (f['startedMarketMs'] === undefined) return undefined;
  const started = Number(f['startedMarketMs']);
  return {
    runId,
    startedMarketMs: started,
    startedAtMs: Number(f['startedAtMs'] ?? 0),
    lastSeenMarketMs: Number(f['lastSeenMarketMs'] ?? started),
    lastSeenAtMs: Number(f['lastSeenAtMs'] ?? f['startedAtMs'] ?? 0),
    stoppedMarketMs: f['stoppedMarketMs'] === undefined ? undefined : Number(f['stoppedMarketMs']),
  };
}

/** The hash fields one mark sets. */
export function runMarkFields(mark: RunMark): Record<string, string> {
  const seen = { lastSeenMarketMs: String(mark.marketMs), lastSeenAtMs: String(mark.atMs) };
  if (mark.event === 'start') return { startedMarketMs: String(mark.marketMs), startedAtMs: String(mark.atMs), ...seen };
  if (mark.event === 'stop') return { stoppedMarketMs: String(mark.marketMs), ...seen };
  return seen;
}

/**
 * The runs that overlap [from, to], oldest first. The newest run without a stop mark may still be
 * running: heartbeats are wall-clock (every drift.heartbeatSeconds), so on an accelerated paper clock
 * its last one can lag the market by many minutes; it counts as alive from its start on.
 */
export function runsOverlapping(all: readonly DaemonRun[], fromMarketMs: number, toMarketMs: number): DaemonRun[] {
  const sorted = [...all].sort((a, b) => a.startedMarketMs - b.startedMarketMs);
  const newest = sorted[sorted.length - 1];
  const end = (r: DaemonRun): number => r.stoppedMarketMs ?? (r === newest ? Number.POSITIVE_INFINITY : r.lastSeenMarketMs);
  return sorted.filter((r) => r.startedMarketMs <= toMarketMs && end(r) >= fromMarketMs);
}

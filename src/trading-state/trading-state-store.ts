import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '../store/redis';
import { ConfigError, StoreUnavailableError } from '../domain/errors';
import type { StoreKeys } from '../store/keys';
import { withStore } from '../store/redis';
import { storeScripts } from '../store/scripts';
import { TRADING_STATES, type TradingState } from './trading-state';

/**
 * Where an operator's run-time trading state lives, so `tradebot pause|resume|reduce-only` (another
 * process) can switch a running daemon. The daemon polls `read()` and reports what it applied; the
 * CLI calls `write()` and waits for the reports. A set state also survives a restart: a paused
 * daemon comes back paused.
 *
 * Records are ordered by `seq`, which the STORE allocates atomically at `write()`: never by a
 * writer's clock (a pause from a host whose clock is behind must not be dropped).
 */
export interface TradingStateChange {
  readonly state: TradingState;
  readonly reason: string;
  /** Unix ms on the writer's clock: shown to people, never used to order records. */
  readonly atMs: number;
}

export interface StoredPosition {
  /** The store's order of the record: larger is later. 0 for a record written before seqs existed. */
  readonly seq: number;
  /** One life of the store: a new epoch means the counter started over (the store lost its data). */
  readonly epoch: string;
}

export interface TradingStateRecord extends TradingStateChange, StoredPosition {}

/** What one daemon replica applied, written after every poll (its heartbeat). */
export interface AppliedReport {
  readonly instance: string;
  readonly epoch: string;
  readonly appliedSeq: number;
  /** The replica's trading state when it reported. */
  readonly state: TradingState;
  /** The replica's clock: information only. */
  readonly atMs: number;
}

/** A report and how long ago it was written, measured by the store's clock (Redis TIME; the file's mtime on one host). */
export interface ReplicaReport extends AppliedReport {
  readonly ageMs: number;
}

export interface TradingStateStore {
  read(): Promise<TradingStateRecord | undefined>;
  /** Stores a change with the next seq (atomically) and returns where it landed. */
  write(change: TradingStateChange): Promise<StoredPosition>;
  reportApplied(report: AppliedReport): Promise<void>;
  /** Every replica that reported within REPLICA_FORGET_MS, with its age. */
  readReplicas(): Promise<ReplicaReport[]>;
}

/** A replica that reported within this is running (it reports every second). */
export const REPLICA_ALIVE_MS = 5000;
/** Reports older than this are deleted. */
export const REPLICA_FORGET_MS = 3_600_000;

/** True when `record` comes after what was applied: a later seq, or a store that started over. */
export function isLater(record: StoredPosition, applied: StoredPosition): boolean {
  return record.epoch !== applied.epoch || record.seq > applied.seq;
}

export function parseTradingState(value: string): TradingState {
  const v = value.trim().toLowerCase();
  const state = v === 'reduce-only' || v === 'reduce_only' ? 'reducing' : v === 'paused' ? 'halted' : v;
  if (!(TRADING_STATES as readonly string[]).includes(state)) {
    throw new ConfigError(`unknown trading state "${value}" (active, halted, reducing)`, { path: 'tradingState' });
  }
  return state as TradingState;
}

/** A report read back from the store; undefined when it is not one (then it is ignored). */
export function parseReport(text: string): AppliedReport | undefined {
  try {
    const v = JSON.parse(text) as Partial<AppliedReport>;
    if (typeof v.instance !== 'string' || typeof v.epoch !== 'string' || typeof v.appliedSeq !== 'number' || typeof v.state !== 'string') return undefined;
    return { instance: v.instance, epoch: v.epoch, appliedSeq: v.appliedSeq, state: parseTradingState(v.state), atMs: Number(v.atMs ?? 0) };
  } catch {
    return undefined;
  }
}

/** A HASH (state, reason, atMs, seq, epoch) at StoreKeys.tradingState(); replica reports beside it. */
export class RedisTradingStateStore implements TradingStateStore {
  private readonly key: string;
  private readonly appliedKey: string;
  private readonly seenKey: string;

  constructor(private readonly redis: RedisConnection, keys: StoreKeys, private readonly newEpoch: () => string = randomEpoch) {
    this.key = keys.tradingState();
    this.appliedKey = keys.tradingStateApplied();
    this.seenKey = keys.tradingStateSeen();
  }

  async read(): Promise<TradingStateRecord | undefined> {
    const fields = await withStore('readTradingState', () => this.redis.hgetall(this.key));
    const state = fields['state'];
    if (state === undefined) return undefined;
    return {
      state: parseTradingState(state), reason: fields['reason'] ?? '', atMs: Number(fields['atMs'] ?? 0),
      seq: Number(fields['seq'] ?? 0), epoch: fields['epoch'] ?? '',
    };
  }

  async write(change: TradingStateChange): Promise<StoredPosition> {
    const reply = await withStore('writeTradingState', () =>
      storeScripts(this.redis).setTradingState(this.key, change.state, change.reason, change.atMs, this.newEpoch()));
    const [seq, epoch] = reply;
    if (typeof seq !== 'number' || typeof epoch !== 'string') throw new StoreUnavailableError('malformed set-trading-state reply', { reply: JSON.stringify(reply) });
    return { seq, epoch };
  }

  async reportApplied(report: AppliedReport): Promise<void> {
    await withStore('reportTradingState', () =>
      storeScripts(this.redis).reportTradingState(this.appliedKey, this.seenKey, report.instance, JSON.stringify(report), REPLICA_FORGET_MS));
  }

  async readReplicas(): Promise<ReplicaReport[]> {
    const reply = await withStore('readTradingStateReplicas', () => storeScripts(this.redis).readTradingStateReplicas(this.appliedKey, this.seenKey));
    const now = Number(reply[0]);
    const out: ReplicaReport[] = [];
    for (const row of reply.slice(1)) {
      if (!Array.isArray(row)) continue;
      const report = parseReport(String(row[1]));
      if (report !== undefined) out.push({ ...report, ageMs: Math.max(0, now - Number(row[2])) });
    }
    return out;
  }
}

/** In-process store (tests, memoryAdapters; the daemon without Redis uses FileTradingStateStore): the same contract, seq counted here. */
export class InMemoryTradingStateStore implements TradingStateStore {
  private record: TradingStateRecord | undefined;
  private readonly reports = new Map<string, { report: AppliedReport; atMs: number }>();
  private readonly epoch = randomEpoch();

  read(): Promise<TradingStateRecord | undefined> {
    return Promise.resolve(this.record);
  }

  write(change: TradingStateChange): Promise<StoredPosition> {
    const position = { seq: (this.record?.seq ?? 0) + 1, epoch: this.epoch };
    this.record = { ...change, ...position };
    return Promise.resolve(position);
  }

  reportApplied(report: AppliedReport): Promise<void> {
    this.reports.set(report.instance, { report, atMs: Date.now() });
    return Promise.resolve();
  }

  readReplicas(): Promise<ReplicaReport[]> {
    return Promise.resolve([...this.reports.values()].map((r) => ({ ...r.report, ageMs: Date.now() - r.atMs })));
  }
}

export function randomEpoch(): string {
  return randomUUID();
}

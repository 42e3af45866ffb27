import { readFile, writeFile } from 'node:fs/promises';
import type { DeploymentLog, RecordedCandle } from '../store/deployment-log-port';
import { InMemoryDeploymentLog } from '../store/memory/in-memory-deployment-log';
import type { OrderRecord, OrderStore } from '../store/order-store-port';
import { JOURNAL_SCAN, type DriftSources } from './run-drift';

/**
 * The records of one window as a file, for a drift check in another process when the daemon keeps
 * them in its own memory (paper without Redis): the child reads the file instead of Redis.
 */
export interface RecordsSnapshot {
  readonly format: 1;
  readonly candles: readonly RecordedCandle[];
  readonly decisions: Awaited<ReturnType<DeploymentLog['decisions']>>;
  readonly balances: NonNullable<Awaited<ReturnType<DeploymentLog['balancesAt']>>>[];
  readonly runs: Awaited<ReturnType<DeploymentLog['runs']>>;
  /** Absent in snapshots written before versions were recorded. */
  readonly versions?: Awaited<ReturnType<DeploymentLog['versions']>> | undefined;
  readonly orders: readonly OrderRecord[];
}

export interface SnapshotScope {
  readonly from: number;
  readonly to: number;
  /** Seconds of candles before `from` the strategies warm up on. */
  readonly lookbackSec: number;
  readonly subscriptions: readonly { readonly market: string; readonly interval: import('../domain/candle').Interval }[];
  readonly strategies: readonly string[];
}

/**
 * Everything the check may read: from `from - lookbackSec` on (the replay may start at the run's first
 * candle or the strategy's last flat moment before `from`, and warms up before that), so candles,
 * orders, balance snapshots and runs of that whole stretch.
 */
export async function buildRecordsSnapshot(log: DeploymentLog, journal: Pick<OrderStore, 'listByStrategy'>, scope: SnapshotScope): Promise<RecordsSnapshot> {
  const since = scope.from - scope.lookbackSec;
  const candles: RecordedCandle[] = [];
  for (const s of scope.subscriptions) candles.push(...(await log.candles(s.market, s.interval, since, scope.to)));
  const balances = new Map<number, NonNullable<Awaited<ReturnType<DeploymentLog['balancesAt']>>>>();
  for (const time of new Set([...candles.map((c) => c.time), scope.from])) {
    if (time > scope.from) continue;
    const b = await log.balancesAt(time * 1000);
    if (b !== undefined) balances.set(b.marketMs, b);
  }
  // Every order before `to`, however old: the replay's flat anchor and carried state read the strategy's whole past.
  const orders: OrderRecord[] = [];
  for (const name of scope.strategies) orders.push(...(await journal.listByStrategy(name, JOURNAL_SCAN)).filter((r) => r.candleTime < scope.to));
  return {
    format: 1, candles, decisions: await log.decisions(since, scope.to), balances: [...balances.values()],
    runs: await log.runs(since * 1000, scope.to * 1000),
    versions: (await log.versions(scope.to * 1000)).filter((v) => scope.strategies.includes(v.strategy)), orders,
  };
}


/** The snapshot as a file only this user can read (a private directory's: drift-job.ts). */
export async function writeRecordsSnapshot(file: string, log: DeploymentLog, journal: Pick<OrderStore, 'listByStrategy'>, scope: SnapshotScope): Promise<void> {
  await writeFile(file, JSON.stringify(await buildRecordsSnapshot(log, journal, scope)), { mode: 0o600, flag: 'wx' });
}

/** The snapshot as the drift check's sources (an in-memory log with the same rules, and a journal reader). */
export async function readRecordsSnapshot(file: string): Promise<DriftSources> {
  return snapshotSources(JSON.parse(await readFile(file, 'utf8')) as RecordsSnapshot, file);
}

export async function snapshotSources(s: RecordsSnapshot, where: string): Promise<DriftSources> {
  if (s?.format !== 1) throw new Error(`${where}: not a drift records snapshot (format ${String(s?.format)})`);
  const log = new InMemoryDeploymentLog({ retentionSec: Number.MAX_SAFE_INTEGER / 2000, maxEntries: Number.MAX_SAFE_INTEGER });
  for (const c of s.candles) await log.recordCandle(c);
  for (const d of s.decisions) await log.recordDecision(d);
  for (const b of s.balances) await log.recordBalances(b);
  for (const v of s.versions ?? []) await log.recordVersion(v);
  for (const r of s.runs) {
    await log.markRun({ runId: r.runId, event: 'start', marketMs: r.startedMarketMs, atMs: r.startedAtMs });
    await log.markRun({ runId: r.runId, event: 'heartbeat', marketMs: r.lastSeenMarketMs, atMs: r.lastSeenAtMs });
    if (r.stoppedMarketMs !== undefined) await log.markRun({ runId: r.runId, event: 'stop', marketMs: r.stoppedMarketMs, atMs: r.lastSeenAtMs });
  }
  return { log, journal: { listByStrategy: async (strategy) => s.orders.filter((o) => o.strategy === strategy) } };
}

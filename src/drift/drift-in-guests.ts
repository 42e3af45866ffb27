import * as path from 'node:path';
import { z } from 'zod';
import { intervalSeconds } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import { BacktestInputError } from '../domain/errors';
import type { GuestIsolationLevel } from '../domain/guest-isolation';
import { forkGuest, killGuest } from '../strategy/guest/guest-channel';
import type { GuestStrategy } from '../strategy/guest/guest-host';
import { resolveIsolation, strategyReadable } from '../strategy/guest/sandbox';
import { fromWire } from '../strategy/guest/wire';
import { correctedCandles, type CorrectedCandle } from './data-drift';
import { runAliveAt } from './downtime';
import { privateDir, writeDriftJob } from './drift-job';
import { clipToRecords, NothingRecordedError } from './recorded-window';
import { buildRecordsSnapshot } from './records-snapshot';
import { ANCHOR_LOOKBACK_CANDLES, tally, type DriftResult, type DriftSources, type DriftSpec, type StrategyDrift } from './run-drift';

export interface DriftGuestOptions {
  /** The strategies' metadata as described by their guests (markets, interval, warm-up, module file). */
  readonly strategies: readonly GuestStrategy[];
  /** The strategy guests' isolation; a replay always runs in a process (`thread` becomes `permission`). */
  readonly isolation: GuestIsolationLevel;
  /** Heap of one replay's guest, MB (it holds the window's candles and orders). */
  readonly heapMb?: number | undefined;
  /** A replay that takes longer is killed and the check fails. */
  readonly timeoutMs?: number | undefined;
  /** Run the replays at a lower CPU priority (the daemon's periodic check: candles come first). */
  readonly lowPriority?: boolean | undefined;
  /** Aborting kills the replay in progress (the daemon stops). */
  readonly signal?: AbortSignal | undefined;
}

export interface GuestDrift {
  readonly result: DriftResult;
  /** CPU the replays' guests used. */
  readonly cpuSeconds: number;
}

/** A window's candles and orders; bounded so a replay fits beside the daemon in a 512 MiB pod. */
const DEFAULT_HEAP_MB = 256;
/** Niceness of the daemon's periodic replays: candles and orders come first. */
const LOW_PRIORITY = 10;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const ENTRY = path.join(__dirname, `drift-guest${path.extname(__filename)}`);

/**
 * The drift check with every strategy replayed in a guest of its own (drift-guest.ts), as isolated as
 * the daemon's live guests: this process reads the records (Redis or memory) and, when asked, the
 * venue's history; each guest gets a file with its strategy's records alone, reads its own module and
 * nothing else, and answers the result. Strategy code never runs where the secrets and connections are.
 */
export async function runDriftInGuests(asked: DriftSpec, src: DriftSources, o: DriftGuestOptions): Promise<GuestDrift> {
  if (!(asked.to > asked.from)) throw new BacktestInputError('--to must be after --from', { field: 'to' });
  // Given balances need no record; otherwise the window begins where the records do.
  const window = asked.balances !== undefined ? { from: asked.from, to: asked.to } : await clipToRecords(src.log, asked.from, asked.to);
  if (window === null) throw new NothingRecordedError(asked.from, asked.to);
  const spec = { ...asked, from: window.from };
  // The run alive at `from`: each replay may warm up from its start (one answer for every strategy).
  const runs = await src.log.runs(spec.from * 1000, spec.to * 1000);
  const alive = runAliveAt(runs, spec.from * 1000);
  const sinceRunStart = alive === undefined ? 0 : Math.max(0, spec.from - Math.floor(alive.startedMarketMs / 1000));
  const results: DriftResult[] = [];
  const corrections: CorrectedCandle[] = [];
  let cpuSeconds = 0;
  const dir = await privateDir('tradebot-drift');
  try {
    for (const deployed of spec.strategies) {
      const meta = o.strategies.find((s) => s.name === deployed.name);
      if (meta?.file === undefined) throw new BacktestInputError(`${deployed.name}: not among the loaded strategies (its module did not load)`, { field: 'strategy' });
      const markets = deployed.markets ?? meta.markets;
      const interval = deployed.interval ?? meta.interval;
      const step = intervalSeconds(interval);
      // What runDrift may read: its flat-anchor lookback, the run's own start, and the warm-up before either.
      const lookbackSec = (ANCHOR_LOOKBACK_CANDLES + meta.warmup + 2) * step + sinceRunStart;
      const records = await buildRecordsSnapshot(src.log, src.journal, {
        from: spec.from, to: spec.to, lookbackSec, subscriptions: markets.map((market) => ({ market, interval })), strategies: [deployed.name],
      });
      const corrected = spec.venue === undefined ? undefined : await venueCheck(spec, src, markets, interval);
      corrections.push(...(corrected ?? []));
      const file = path.join(spec.strategiesDir, path.basename(meta.file));
      const { venue: _venue, ...plain } = spec;
      const job = await writeDriftJob(dir.dir, `job-${results.length}`, { ...plain, strategies: [{ ...deployed, file }], corrected }, records);
      const answer = await replayInGuest(job, [...strategyReadable(file), job], o, deployed.name);
      // The guest ran strategy code: its answer is taken for its own strategy only, and the venue check is ours.
      const own = answer.result.strategies;
      if (own.length !== 1 || own[0]?.strategy !== deployed.name) throw new Error(`drift replay of ${deployed.name}: its guest answered for ${own.map((x) => x.strategy).join(', ') || 'no strategy'}`);
      results.push(answer.result);
      cpuSeconds += answer.cpuSeconds;
    }
  } finally {
    await dir.remove();
  }
  return { result: { ...merge(spec, results, corrections), ...(window.askedFrom === undefined ? {} : { askedFrom: window.askedFrom }) }, cpuSeconds };
}

async function venueCheck(spec: DriftSpec, src: DriftSources, markets: readonly string[], interval: StrategyDrift['interval']): Promise<CorrectedCandle[]> {
  const recorded = new Map<string, Awaited<ReturnType<DriftSources['log']['candles']>>>();
  for (const m of markets) recorded.set(m, await src.log.candles(m, interval, spec.from, spec.to));
  return correctedCandles(spec.venue!, markets, interval, spec.from, spec.to, recorded);
}

/** One replay in its guest; its answer is untrusted (strategy code ran there): checked before it is used. */
function replayInGuest(job: string, readable: readonly string[], o: DriftGuestOptions, strategy: string): Promise<GuestDrift> {
  const level = o.isolation === 'thread' ? permissionLevel() : o.isolation;
  const child = forkGuest(ENTRY, level, readable, o.heapMb ?? DEFAULT_HEAP_MB);
  return new Promise<GuestDrift>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) killGuest(child);
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`drift replay of ${strategy} took over ${(o.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s: killed`))), o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.on('message', (m: unknown) => finish(() => {
      try {
        resolve(checkAnswer(m, strategy));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    }));
    child.on('error', (err) => finish(() => reject(new Error(`drift replay of ${strategy}: its guest failed: ${err.message}`))));
    const onAbort = (): void => finish(() => reject(new Error(`drift replay of ${strategy} stopped: the daemon is stopping`)));
    if (o.signal?.aborted === true) onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('exit', () => o.signal?.removeEventListener('abort', onAbort));
    child.on('exit', (code, signal) => finish(() => reject(new Error(`drift replay of ${strategy}: its guest ended without an answer (${signal ?? `code ${code}`})`))));
    child.send({ type: 'drift', job, ...(o.lowPriority === true ? { nice: LOW_PRIORITY } : {}) });
  });
}

const decimal = z.custom<Decimal>((v) => Decimal.isDecimal(v), 'a decimal');
const strategyShape = z.object({
  strategy: z.string(), matched: z.number().int().min(0), pnlDifference: decimal,
  differences: z.array(z.object({ kind: z.enum(['only_live', 'only_replay', 'different']), cause: z.string(), candleTime: z.number(), market: z.string(), detail: z.string(), fields: z.array(z.string()) }).loose()),
}).loose();
const answerShape = z.discriminatedUnion('type', [
  z.object({ type: z.literal('drift_result'), cpuSeconds: z.number().min(0), result: z.object({ strategies: z.array(strategyShape).max(1), candlesRecorded: z.number().int().min(0) }).loose() }),
  z.object({ type: z.literal('drift_failed'), name: z.string(), message: z.string(), context: z.record(z.string(), z.unknown()).optional() }),
]);

function checkAnswer(raw: unknown, strategy: string): GuestDrift {
  const parsed = answerShape.safeParse(fromWire(raw));
  if (!parsed.success) throw new Error(`drift replay of ${strategy}: its guest answered something else than a drift result: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const a = parsed.data;
  if (a.type === 'drift_failed') {
    const message = a.message.slice(0, 2000);
    if (a.name === 'BacktestInputError') throw new BacktestInputError(message, (a.context ?? {}) as Record<string, string | number | boolean>);
    throw new Error(`drift replay of ${strategy} failed: ${message}`);
  }
  return { result: a.result as unknown as DriftResult, cpuSeconds: a.cpuSeconds };
}

function merge(spec: DriftSpec, results: readonly DriftResult[], corrections: readonly CorrectedCandle[]): DriftResult {
  const strategies = results.flatMap((r) => r.strategies);
  const counts = tally(strategies);
  const checked = spec.venue !== undefined;
  return {
    from: spec.from, to: spec.to, downtime: results[0]?.downtime ?? [], strategies, counts,
    unexplained: counts.onlyLive.unexplained + counts.onlyReplay.unexplained + counts.different.unexplained,
    candlesRecorded: results.reduce((n, r) => n + r.candlesRecorded, 0),
    corrected: checked ? [...corrections] : null,
  };
}

function permissionLevel(): Exclude<GuestIsolationLevel, 'thread'> {
  const r = resolveIsolation('permission');
  return r === 'permission-net' ? r : 'permission';
}

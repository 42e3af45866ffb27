import { availableParallelism } from 'node:os';
import { intervalSeconds, type Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { expandGrid } from '../sweep/grid';
import { rankResults } from '../sweep/run-sweep';
import { openSweepPool, type SweepPool } from '../sweep/sweep-pool';
import type { SweepJob, SweepRunResult, SweepSetup } from '../sweep/sweep-types';
import { stitchEquity, type StitchedEquity } from './stitch';
import { walkForwardFolds, type Fold, type WalkForwardWindows } from './windows';

export interface WalkForwardInput {
  readonly setup: SweepSetup;
  readonly grid: Readonly<Record<string, unknown>>;
  readonly rankBy: string;
  readonly windows: WalkForwardWindows;
  /** The strategy's candle interval and warm-up (candles), from the strategy as loaded with the base parameters. */
  readonly strategy: { readonly interval: Interval; readonly warmup: number };
  /** The data: its candle interval, first candle time and end (last candle + data interval), Unix s. */
  readonly dataInterval: Interval;
  readonly first: number;
  readonly end: number;
  readonly workers?: number | undefined;
  /** Where the runs go instead of this machine's threads (the queue, `--queue`); the caller closes it. */
  readonly pool?: SweepPool | undefined;
  readonly onProgress?: ((phase: 'train' | 'test', done: number, total: number) => void) | undefined;
}

/** One fold: what won on its train window and how that did on the test window after it. */
export interface FoldResult {
  readonly fold: Fold;
  readonly trainRuns: number;
  /** Train runs that could not run (e.g. invalid parameter combinations) or whose strategy failed: never picked. */
  readonly trainExcluded: number;
  readonly best?: { readonly params: Readonly<Record<string, unknown>>; readonly trainValue: string | number | null };
  readonly test?: SweepRunResult;
  /** Why the fold has no test run. */
  readonly skipped?: string;
}

export interface WalkForwardResult {
  readonly windows: WalkForwardWindows;
  readonly rankBy: string;
  readonly folds: readonly FoldResult[];
  readonly stitched: StitchedEquity;
  readonly workers: number;
}

/**
 * Walk-forward optimisation: for each fold, every grid point runs on the train window and the best
 * by `rankBy` (runs that errored or whose strategy failed excluded) runs on the following test
 * window; the test windows' equity curves are stitched into one out-of-sample curve.
 *
 * Every window starts warm: it gets the strategy's `warmup` candles before its start, whose intents
 * are dropped (as the daemon's warm-up), and starts flat with the starting balances. All train runs
 * of all folds go to the worker pool at once (they are independent), then all test runs, so every
 * core stays busy; results do not depend on the number of workers.
 */
export async function runWalkForward(input: WalkForwardInput): Promise<WalkForwardResult> {
  const combos = expandGrid(input.grid);
  const folds = walkForwardFolds(input.first, input.end, input.strategy.interval, input.windows);
  const warmSeconds = input.strategy.warmup * intervalSeconds(input.strategy.interval);
  const window = (from: number, to: number): Pick<SweepJob, 'from' | 'to' | 'tradeFrom'> => ({ from: from - warmSeconds, to, tradeFrom: from });
  const pool = input.pool ?? await openSweepPool(input.setup, Math.min(input.workers ?? availableParallelism(), folds.length * combos.length));
  try {
    const trainJobs = folds.flatMap((f) => combos.map((params, i) => ({ index: f.index * combos.length + i, params, ...window(f.trainFrom, f.trainTo) })));
    const train = await pool.run(trainJobs, (_r, done, total) => input.onProgress?.('train', done, total));
    const picks = folds.map((f) => pick(f, train.slice(f.index * combos.length, (f.index + 1) * combos.length), input.rankBy));
    const testJobs = picks.flatMap((p) => (p.best === undefined ? [] : [{ index: p.fold.index, params: p.best.params, withEquity: true, ...window(p.fold.testFrom, p.fold.testTo) }]));
    const tests = await pool.run(testJobs, (_r, done, total) => input.onProgress?.('test', done, total));
    const byFold = new Map(tests.map((t) => [t.index, t]));
    const results: FoldResult[] = picks.map((p) => {
      const test = byFold.get(p.fold.index);
      return test === undefined ? p : { ...p, test };
    });
    const segments = results.flatMap((r) => (r.test?.equity === undefined ? [] : [r.test.equity.map(([time, equity]) => ({ time, equity: new Decimal(equity) }))]));
    return { windows: input.windows, rankBy: input.rankBy, folds: results, stitched: stitchEquity(segments, input.dataInterval), workers: pool.workers };
  } finally {
    if (input.pool === undefined) await pool.close();
  }
}

function pick(fold: Fold, runs: readonly SweepRunResult[], rankBy: string): FoldResult {
  const usable = runs.filter((r) => r.error === undefined && r.strategy?.failed !== true);
  const ranked = rankResults(usable, rankBy);
  const best = ranked.find((r) => r.metrics?.[rankBy] !== undefined && r.metrics[rankBy] !== null);
  const base = { fold, trainRuns: runs.length, trainExcluded: runs.length - usable.length };
  if (best === undefined) return { ...base, skipped: `no usable run on the train window (${runs.length - usable.length} of ${runs.length} errored or failed; ${rankBy} undefined for the rest)` };
  return { ...base, best: { params: best.params, trainValue: best.metrics?.[rankBy] ?? null } };
}

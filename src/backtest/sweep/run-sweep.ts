import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BacktestInputError } from '../../domain/errors';
import { expandGrid } from './grid';
import { loadSweepData, runSweepJob } from './sweep-run';
import type { FromWorker, SweepRunResult, SweepSetup, ToWorker } from './sweep-types';

export interface SweepOptions {
  /** Worker threads; default the number of cores. 0 runs everything in this thread (tests, debugging). */
  readonly workers?: number | undefined;
  /** Called after each finished run (progress). */
  readonly onResult?: ((result: SweepRunResult, done: number, total: number) => void) | undefined;
}

/**
 * Runs every grid point as an independent backtest, spread over worker threads (each loads the data
 * once and takes the next job when free). Results come back in grid order, whatever order the
 * workers finished in, so the output is the same on every run.
 */
export async function runSweep(setup: SweepSetup, grid: Readonly<Record<string, unknown>>, options: SweepOptions = {}): Promise<SweepRunResult[]> {
  const combos = expandGrid(grid);
  const jobs = combos.map((params, index) => ({ index, params }));
  const workers = Math.min(options.workers ?? availableParallelism(), jobs.length);
  const results: SweepRunResult[] = new Array(jobs.length);
  let done = 0;
  const record = (r: SweepRunResult): void => {
    results[r.index] = r;
    done++;
    options.onResult?.(r, done, jobs.length);
  };
  if (workers <= 0) {
    const data = await loadSweepData(setup);
    const cache = new Map();
    for (const job of jobs) record(await runSweepJob(setup, data, job, cache));
    return results;
  }
  const file = path.join(__dirname, 'sweep-worker.js');
  if (!existsSync(file)) {
    throw new BacktestInputError(`sweep workers need the compiled code (${file}); run "npm run build" and use dist/src/main.js, or --workers 0`, { field: 'workers' });
  }
  let next = 0;
  await Promise.all(Array.from({ length: workers }, () => new Promise<void>((resolve, reject) => {
    const worker = new Worker(file, { workerData: setup });
    const post = (m: ToWorker): void => worker.postMessage(m);
    const feed = (): void => {
      const job = jobs[next++];
      if (job === undefined) {
        post({ type: 'stop' });
        return;
      }
      post({ type: 'job', job });
    };
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') feed();
      else if (m.type === 'result') {
        record(m.result);
        feed();
      } else {
        reject(new BacktestInputError(`sweep worker failed: ${m.error}`, { field: 'data' }));
        void worker.terminate();
      }
    });
    worker.on('error', reject);
    worker.on('exit', () => resolve());
  })));
  return results;
}

/** Metrics where smaller is better; every other metric ranks descending. */
const LOWER_IS_BETTER = new Set(['maxDrawdown', 'maxDrawdownPct', 'totalFees', 'lossCount', 'grossLoss']);

/** Ranked best first by `rankBy` (default netPnl); failed runs and undefined values last; ties by grid order. */
export function rankResults(results: readonly SweepRunResult[], rankBy = 'netPnl'): SweepRunResult[] {
  const sign = LOWER_IS_BETTER.has(rankBy) ? 1 : -1;
  const value = (r: SweepRunResult): number | undefined => {
    const v = r.metrics?.[rankBy];
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'number' ? v : Number(v); // ranking only: money compared as floats is fine for ordering
    return Number.isNaN(n) ? undefined : n;
  };
  return [...results].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === undefined || vb === undefined) return (va === undefined ? 1 : 0) - (vb === undefined ? 1 : 0) || a.index - b.index;
    return sign * (va - vb) || a.index - b.index;
  });
}

const COLUMNS = ['netPnl', 'returnPct', 'maxDrawdownPct', 'tradeCount', 'winRate', 'profitFactor', 'sharpe'] as const;

/** The ranked table printed by `tradebot backtest --sweep`. */
export function formatSweepTable(ranked: readonly SweepRunResult[], rankBy: string): string {
  const cols = COLUMNS.includes(rankBy as never) ? [...COLUMNS] : [rankBy, ...COLUMNS];
  const header = ['rank', 'params', ...cols];
  const rows = ranked.map((r, i) => [String(i + 1), JSON.stringify(r.params), ...(r.error !== undefined
    ? [`error: ${r.error}`, ...cols.slice(1).map(() => '')]
    : cols.map((c) => cell(r.metrics?.[c])))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

function cell(v: string | number | null | undefined): string {
  if (v === undefined || v === null) return 'n/a';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  const n = Number(v);
  return Number.isFinite(n) && /^-?\d+\.\d{3,}$/.test(v) ? n.toFixed(2) : v;
}

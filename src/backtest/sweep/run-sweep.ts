import { availableParallelism } from 'node:os';
import { BacktestInputError } from '../../domain/errors';
import { METRIC_NAMES } from '../report/metrics';
import { outOfMoneyCell } from '../report/out-of-money';
import { expandGrid } from './grid';
import { openSweepPool } from './sweep-pool';
import type { SweepRunResult, SweepSetup } from './sweep-types';

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
  const jobs = expandGrid(grid).map((params, index) => ({ index, params }));
  const pool = await openSweepPool(setup, Math.min(options.workers ?? availableParallelism(), jobs.length));
  try {
    return await pool.run(jobs, options.onResult);
  } finally {
    await pool.close();
  }
}

/** Metrics a sweep can rank by: every report metric that says something about the result (not its time range). */
export const RANK_METRICS: readonly string[] = METRIC_NAMES.filter((m) => !['startTime', 'endTime', 'candleCount', 'startEquity'].includes(m));

/** Refuses a --rank-by that is no ranking metric, listing the ones that are. */
export function checkRankMetric(rankBy: string): string {
  if (!RANK_METRICS.includes(rankBy)) {
    throw new BacktestInputError(`--rank-by: unknown metric "${rankBy}" (metrics: ${RANK_METRICS.join(', ')})`, { field: 'rank-by' });
  }
  return rankBy;
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

/** The ranked table printed by `tradebot backtest --sweep` (and written to sweep.csv with `,`). */
export function formatSweepTable(ranked: readonly SweepRunResult[], rankBy: string): string {
  const { header, rows } = sweepRows(ranked, rankBy);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i >= 2 && i < cells.length - 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/**
 * The table's cells: rank, params, the metrics, orders denied and rejected, whether the run ran out of
 * money (`money`: its figures stop where its money did) and the strategy's health.
 */
export function sweepRows(ranked: readonly SweepRunResult[], rankBy: string): { header: string[]; rows: string[][] } {
  const cols = COLUMNS.includes(rankBy as never) ? [...COLUMNS] : [rankBy, ...COLUMNS];
  const header = ['rank', 'params', ...cols, 'denied', 'rejected', 'money', 'strategy'];
  const rows = ranked.map((r, i) => [String(i + 1), JSON.stringify(r.params), ...(r.error !== undefined
    ? [...cols.map(() => ''), '', '', '', `error: ${r.error}`]
    : [...cols.map((c) => cell(r.metrics?.[c])), String(r.orders?.denied ?? 0), String(r.orders?.rejected ?? 0), outOfMoneyCell(r.outOfMoney), health(r)])]);
  return { header, rows };
}

function health(r: SweepRunResult): string {
  const s = r.strategy;
  if (s === undefined || !s.failed) return 'ok';
  return `FAILED (${s.errors} errors, ${s.overruns} overruns${s.pauses > 0 ? ', paused' : ''})`;
}

function cell(v: string | number | null | undefined): string {
  if (v === undefined || v === null) return 'n/a';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  const n = Number(v);
  return Number.isFinite(n) && /^-?\d+\.\d{3,}$/.test(v) ? n.toFixed(2) : v;
}

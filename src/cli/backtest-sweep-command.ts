import * as path from 'node:path';
import { BacktestInputError } from '../domain/errors';
import { decimalRecordToText, parseJsonObject } from '../backtest/options';
import { findNamedStrategy } from '../backtest/run-backtest';
import { expandGrid } from '../backtest/sweep/grid';
import { checkRankMetric, rankResults, runSweep } from '../backtest/sweep/run-sweep';
import type { SweepSetup } from '../backtest/sweep/sweep-types';
import { writeSweep } from '../backtest/sweep/write-sweep';
import { fillModelText } from '../domain/fill-model';
import { findUnknownParam } from '../strategy/param-keys';
import type { BacktestCliOptions, BacktestRequest } from './backtest-request';
import { reportSweep } from './sweep-report';

/**
 * `--sweep` (and `--walk-forward`): every option, grid key and the ranking metric are checked in
 * this thread before a worker starts; the ranked table goes to stdout and to `--out` (sweep.json,
 * sweep.csv). Returns true when a run failed (could not run, or its strategy failed) and the author
 * did not pass --allow-strategy-errors.
 */
export async function runSweepCommand(request: BacktestRequest, opts: BacktestCliOptions): Promise<boolean> {
  if (opts.sweep === undefined) throw new BacktestInputError('--walk-forward needs --sweep: the grid each train window is optimised over', { field: 'walk-forward' });
  const grid = parseJsonObject(opts.sweep, '--sweep');
  const rankBy = checkRankMetric(opts.rankBy ?? 'netPnl');
  const workers = opts.workers === undefined ? undefined : parseWorkers(opts.workers);
  const setup = sweepSetup(request, grid);
  if (opts.queue === true || opts.chunkSize !== undefined) {
    const { runQueuedCommand } = require('./backtest-queue-command') as typeof import('./backtest-queue-command');
    return runQueuedCommand(request, opts, setup, grid, rankBy);
  }
  if (opts.walkForward !== undefined) {
    const { runWalkForwardCommand } = require('./backtest-walk-forward-command') as typeof import('./backtest-walk-forward-command');
    return runWalkForwardCommand(request, setup, grid, { rankBy, workers, windows: opts.walkForward });
  }
  const progress = !process.stderr.isTTY ? undefined : (_r: unknown, done: number, total: number) => {
    process.stderr.write(`\r${done}/${total} runs`);
    if (done === total) process.stderr.write('\n');
  };
  const results = await runSweep(setup, grid, { workers, onResult: progress });
  const ranked = rankResults(results, rankBy);
  const files = await writeSweep(request.out, { setup, grid, rankBy, ranked });
  return reportSweep(request, ranked, rankBy, files);
}

/** The setup every worker gets, after the strategy, its base parameters and the grid keys were checked here. */
export function sweepSetup(request: BacktestRequest, grid: Readonly<Record<string, unknown>>): SweepSetup {
  const spec = request.spec;
  expandGrid(grid); // shape and size errors before anything loads
  // Loads the strategy once here (its own module only): a bad name or base parameter fails now, not in every worker.
  const found = findNamedStrategy(spec, request.data.map((d) => d.market));
  // The grid's keys against the schema (its values are checked per run: a refused combination is an error row).
  const unknown = findUnknownParam(found.strategy.definition.params, Object.fromEntries(Object.keys(grid).map((k) => [k, undefined])));
  if (unknown !== undefined) {
    throw new BacktestInputError(`--sweep: unknown parameter "${unknown.path}" of ${spec.strategy} (known: ${unknown.known.join(', ')})`, { field: 'sweep', param: unknown.path });
  }
  return {
    strategy: spec.strategy, strategiesDir: path.resolve(spec.strategiesDir ?? 'strategies'), interval: spec.interval,
    data: request.data, from: request.from, to: request.to, balances: decimalRecordToText(spec.balances),
    risk: spec.risk, baseParams: spec.params ?? {}, collateral: spec.collateral,
    collateralBalances: decimalRecordToText(spec.collateralBalances ?? {}),
    ...(spec.fillModel === undefined ? {} : { fill: fillModelText(spec.fillModel) }),
  };
}

function parseWorkers(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 256) throw new BacktestInputError(`--workers: expected a whole number 0..256, got "${text}"`, { field: 'workers' });
  return n;
}

import { intervalSeconds } from '../domain/candle';
import { findNamedStrategy, loadBacktestData } from '../backtest/run-backtest';
import type { SweepPool } from '../backtest/sweep/sweep-pool';
import type { SweepSetup } from '../backtest/sweep/sweep-types';
import { runWalkForward } from '../backtest/walk-forward/run-walk-forward';
import { parseWalkForward } from '../backtest/walk-forward/windows';
import { formatFolds, writeWalkForward } from '../backtest/walk-forward/write-walk-forward';
import type { BacktestRequest } from './backtest-request';

/**
 * `--walk-forward '{"train":"14d","test":"7d"}' --sweep GRID`: folds on stdout, walk-forward.json and
 * walk-forward.html in `--out`. Returns true when a test run errored or its strategy failed (unless
 * --allow-strategy-errors), or when no fold could be tested.
 */
export async function runWalkForwardCommand(
  request: BacktestRequest, setup: SweepSetup, grid: Readonly<Record<string, unknown>>, o: { rankBy: string; workers: number | undefined; windows: string; pool?: SweepPool | undefined },
): Promise<boolean> {
  const windows = parseWalkForward(o.windows);
  const data = await loadBacktestData(request.data, { from: request.from, to: request.to });
  const strategy = findNamedStrategy(request.spec, data.markets.map((m) => m.market)).strategy;
  const first = Math.min(...data.markets.map((m) => (m.candles[0] as { time: number }).time));
  const end = Math.max(...data.markets.map((m) => (m.candles[m.candles.length - 1] as { time: number }).time)) + intervalSeconds(data.dataInterval);
  const progress = !process.stderr.isTTY ? undefined : (phase: string, done: number, total: number) => {
    process.stderr.write(`\r${phase}: ${done}/${total} runs`);
    if (done === total) process.stderr.write('\n');
  };
  const result = await runWalkForward({
    setup, grid, rankBy: o.rankBy, windows, strategy: { interval: strategy.interval, warmup: strategy.warmup },
    dataInterval: data.dataInterval, first, end, workers: o.workers, pool: o.pool, onProgress: progress,
  });
  const files = await writeWalkForward(request.out, setup, grid, result, data.dataInterval);
  process.stdout.write(formatFolds(result));
  process.stdout.write(`walk-forward ${files.htmlPath}\n             ${files.jsonPath}\n`);
  const tested = result.folds.filter((f) => f.test !== undefined);
  const errored = tested.filter((f) => f.test?.error !== undefined).length;
  const failed = tested.filter((f) => f.test?.strategy?.failed === true).length;
  if (tested.length === 0) process.stderr.write('no fold had a usable winner on its train window: nothing was tested out of sample\n');
  if (errored > 0) process.stderr.write(`${errored} test runs could not run\n`);
  if (failed > 0) process.stderr.write(`the strategy failed in ${failed} test windows${request.allowStrategyErrors ? '; accepted (--allow-strategy-errors)' : ''}\n`);
  return tested.length === 0 || errored > 0 || (failed > 0 && !request.allowStrategyErrors);
}

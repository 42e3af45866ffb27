import * as path from 'node:path';
import { writeReport } from '../backtest/report';
import { openRunLog } from '../backtest/run-log';
import { loadBacktestData, runBacktest, runFailed } from '../backtest/run-backtest';
import { formatSummary } from '../backtest/summary';
import type { BacktestRequest } from './backtest-request';

/**
 * One backtest: report.json, report.html and backtest.log (what the strategy wrote with ctx.log,
 * and its failures, stamped with the simulated time) in the output folder, a summary on stdout.
 * Returns true when the run failed and the author did not pass --allow-strategy-errors.
 */
export async function runSingleBacktest(request: BacktestRequest): Promise<boolean> {
  const data = await loadBacktestData(request.data, { from: request.from, to: request.to });
  const logFile = path.join(request.out, 'backtest.log');
  const log = await openRunLog(logFile);
  let outcome;
  try {
    outcome = await runBacktest(request.spec, data, undefined, { log: log.factory, logFile, fullCurve: request.fullCurve });
  } finally {
    await log.close();
  }
  const files = await writeReport(request.out, outcome.result);
  process.stdout.write(formatSummary(outcome, files));
  const failed = runFailed(outcome);
  if (failed) {
    process.stderr.write(request.allowStrategyErrors
      ? 'the strategy failed during this run (see "health" above); exit code 0 because of --allow-strategy-errors\n'
      : 'the strategy failed during this run (see "health" above): its results are not what it would do live. Exit code 1; pass --allow-strategy-errors to accept such a run\n');
  }
  return failed && !request.allowStrategyErrors;
}

import { formatSweepTable } from '../backtest/sweep/run-sweep';
import type { FailedChunk } from '../backtest/queue/queue-jobs';
import type { SweepRunResult } from '../backtest/sweep/sweep-types';
import type { BacktestRequest } from './backtest-request';

/** The ranked table and the files written on stdout, failed runs on stderr; true when the command fails. */
export function reportSweep(request: Pick<BacktestRequest, 'allowStrategyErrors'>, ranked: readonly SweepRunResult[], rankBy: string, files: { jsonPath: string; csvPath: string }): boolean {
  process.stdout.write(formatSweepTable(ranked, rankBy));
  process.stdout.write(`sweep        ${files.jsonPath}\n             ${files.csvPath}\n`);
  const errored = ranked.filter((r) => r.error !== undefined).length;
  const failed = ranked.filter((r) => r.strategy?.failed === true).length;
  if (errored > 0) process.stderr.write(`${errored} of ${ranked.length} runs could not run (see "error:" rows)\n`);
  if (failed > 0) process.stderr.write(`the strategy failed in ${failed} of ${ranked.length} runs (see the strategy column)${request.allowStrategyErrors ? '; accepted (--allow-strategy-errors)' : ''}\n`);
  return errored > 0 || (failed > 0 && !request.allowStrategyErrors);
}

/** Chunks that failed after every attempt: their runs are error rows in the table, and named here. */
export function reportFailedChunks(failed: readonly FailedChunk[]): void {
  for (const f of failed) process.stderr.write(`chunk ${f.chunk} (${f.runs} runs) failed: ${f.reason}\n`);
}

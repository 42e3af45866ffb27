import { BacktestInputError } from '../domain/errors';
import { rankedOfSweepJson } from '../backtest/queue/collect-batch';
import { queueConfigFromEnv } from '../backtest/queue/queue-config';
import { batchContent, queuePool, runQueuedSweep } from '../backtest/queue/run-queued';
import { DEFAULT_CHUNK_SIZE, type SubmittedBatch } from '../backtest/queue/submit-batch';
import { openSweepQueue, type SweepQueue } from '../backtest/queue/sweep-queue';
import type { SweepSetup } from '../backtest/sweep/sweep-types';
import { writeRenderedSweep } from '../backtest/sweep/write-sweep';
import type { BacktestCliOptions, BacktestRequest } from './backtest-request';
import { reportFailedChunks, reportSweep } from './sweep-report';
import { packageVersion } from './package-version';
import { createSweepProgress } from './sweep-progress';

/**
 * `--sweep ... --queue` (and `--walk-forward ... --queue`): the runs go to the BullMQ queue at
 * TRADEBOT_QUEUE_REDIS_URL, where `tradebot worker` processes on any machines run them. The files
 * and the table are the local sweep's. A client that stops leaves the sweep running; the same
 * command again, or `tradebot sweep results ID`, attaches to it.
 */
export async function runQueuedCommand(request: BacktestRequest, opts: BacktestCliOptions, setup: SweepSetup, grid: Readonly<Record<string, unknown>>, rankBy: string): Promise<boolean> {
  if (opts.queue !== true) throw new BacktestInputError('--chunk-size only applies with --queue', { field: 'chunk-size' });
  if (opts.workers !== undefined) {
    throw new BacktestInputError('--workers sets this machine\'s threads; with --queue the work runs on "tradebot worker" processes (scale by starting more)', { field: 'workers' });
  }
  const chunkSize = opts.chunkSize === undefined ? DEFAULT_CHUNK_SIZE : parseChunkSize(opts.chunkSize);
  const config = queueConfigFromEnv();
  const q = await openSweepQueue(config);
  const progress = createSweepProgress(process.stderr, opts.walkForward === undefined ? 'sweep' : 'walk-forward');
  const onSubmitted = (b: SubmittedBatch): void => announce(q, b);
  try {
    if (opts.walkForward !== undefined) {
      const content = await batchContent(q, setup, packageVersion());
      const pool = queuePool(q, content, { chunkSize, version: packageVersion(), onSubmitted, onProgress: (s) => progress.update(s) });
      const { runWalkForwardCommand } = require('./backtest-walk-forward-command') as typeof import('./backtest-walk-forward-command');
      return await runWalkForwardCommand(request, setup, grid, { rankBy, workers: undefined, windows: opts.walkForward, pool });
    }
    const { result } = await runQueuedSweep(q, setup, grid, rankBy, { chunkSize, version: packageVersion(), onSubmitted, onProgress: (s) => progress.update(s) });
    progress.stop();
    reportFailedChunks(result.failedChunks);
    const files = await writeRenderedSweep(request.out, result);
    return reportSweep(request, rankedOfSweepJson(result.json), rankBy, files);
  } finally {
    progress.stop();
    await q.close();
  }
}

function announce(q: SweepQueue, b: SubmittedBatch): void {
  process.stderr.write(`sweep ${b.id}: ${b.runs} runs in ${b.chunks} chunks ${b.existed ? 'already on' : 'queued on'} ${q.config.where} (prefix ${q.config.prefix})\n`
    + `  if this client stops, the sweep goes on: tradebot sweep status ${b.id} / tradebot sweep results ${b.id} --out DIR\n`);
  // A hint only: CLIENT LIST may be disabled on a managed Redis, and workers may start later.
  void q.queue.getWorkersCount().then((n) => {
    if (n === 0) process.stderr.write(`  no worker is connected to this queue yet: start "tradebot worker" with the same TRADEBOT_QUEUE_REDIS_URL${q.config.prefix === 'tradebot-queue' ? '' : ` and TRADEBOT_QUEUE_PREFIX=${q.config.prefix}`}\n`);
  }, () => undefined);
}

function parseChunkSize(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new BacktestInputError(`--chunk-size: expected a whole number 1..1000, got "${text}"`, { field: 'chunk-size' });
  return n;
}

import { availableParallelism, tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { BacktestInputError, TradebotError } from '../domain/errors';
import { queueConfigFromEnv, safeMessage, type QueueConfig } from '../backtest/queue/queue-config';
import { startSweepWorker } from '../backtest/queue/sweep-worker-service';
import { createLogger } from '../log/logger';
import { packageVersion } from './package-version';

interface WorkerOptions {
  concurrency?: string;
  strategies: string;
  cacheDir?: string;
  lockDuration: string;
  drainSeconds: string;
}

/**
 * `tradebot worker`: runs distributed sweep chunks from the queue at TRADEBOT_QUEUE_REDIS_URL, as
 * many at once as the machine has cores. Start any number, on any machines that can reach the
 * queue Redis. SIGTERM / SIGINT: stop taking chunks, let running ones finish within
 * --drain-seconds, then exit (an abandoned chunk is retried by another worker).
 */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run distributed sweep chunks from the queue (TRADEBOT_QUEUE_REDIS_URL); one per core at a time')
    .option('--concurrency <n>', 'chunks at once and sweep threads (default: number of cores)')
    .option('--strategies <dir>', 'strategy module folder (must match the submitter\'s: checked by content hash)', 'strategies')
    .option('--cache-dir <dir>', 'where fetched candle files are kept, by content hash (default: <tmp>/tradebot-sweep-data)')
    .option('--lock-duration <ms>', 'how long a chunk of a dead worker stays locked before another worker retries it', '30000')
    .option('--drain-seconds <s>', 'on SIGTERM, how long running chunks may finish before they are abandoned', '30')
    .action(async (opts: WorkerOptions) => {
      let config: QueueConfig | undefined;
      try {
        config = queueConfigFromEnv();
        const concurrency = opts.concurrency === undefined ? availableParallelism() : whole(opts.concurrency, '--concurrency', 1, 256);
        const lockDurationMs = whole(opts.lockDuration, '--lock-duration', 1000, 3_600_000);
        const drainMs = whole(opts.drainSeconds, '--drain-seconds', 0, 3600) * 1000;
        const log = createLogger({ base: { component: 'sweep-worker' } });
        const service = await startSweepWorker({
          config, concurrency, lockDurationMs, log, version: packageVersion(),
          strategiesDir: path.resolve(opts.strategies),
          cacheDir: path.resolve(opts.cacheDir ?? path.join(tmpdir(), 'tradebot-sweep-data')),
        });
        let stopping = false;
        const stop = (signal: string): void => {
          if (stopping) return;
          stopping = true;
          log.info({ signal, drainMs }, 'stopping: no new chunks');
          service.close(drainMs).then(() => process.exit(0), () => process.exit(1));
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      } catch (err) {
        const text = config === undefined ? (err as Error).message : safeMessage(err, config);
        process.stderr.write(`${err instanceof TradebotError ? `${err.code}: ` : ''}${text}\n`);
        process.exitCode = 1;
      }
    });
}

function whole(text: string, flag: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new BacktestInputError(`${flag}: expected a whole number ${min}..${max}, got "${text}"`, { field: flag.slice(2) });
  return n;
}

import type { Command } from 'commander';
import { TradebotError } from '../domain/errors';
import { rankedOfSweepJson } from '../backtest/queue/collect-batch';
import { queueConfigFromEnv, safeMessage, type QueueConfig } from '../backtest/queue/queue-config';
import { parentJobId, type CollectData } from '../backtest/queue/queue-jobs';
import { awaitBatch } from '../backtest/queue/submit-batch';
import { batchStatus, findBatch, openSweepQueue, type SweepQueue } from '../backtest/queue/sweep-queue';
import { writeRenderedSweep } from '../backtest/sweep/write-sweep';
import { createSweepProgress } from './sweep-progress';
import { reportFailedChunks, reportSweep } from './sweep-report';

/**
 * `tradebot sweep status ID` and `tradebot sweep results ID --out DIR`: a sweep on the queue
 * (`backtest --sweep ... --queue`) seen from any machine, e.g. after the submitting client stopped.
 * `results` waits for the sweep to finish (progress on stderr), then writes sweep.json and sweep.csv.
 */
export function registerSweepCommand(program: Command): void {
  const sweep = program.command('sweep').description('distributed sweeps on the queue (TRADEBOT_QUEUE_REDIS_URL): status and results by sweep ID');
  sweep.command('status')
    .description('chunks done, failed and in all, and the state of the sweep')
    .argument('<id>', 'the sweep ID printed when it was submitted')
    .action((id: string) => withQueue(async (q) => {
      const parent = await findBatch(q, parentJobId(sweepId(id)));
      const data = parent.data as CollectData;
      const s = await batchStatus(q, parent);
      process.stdout.write(`sweep     ${sweepId(id)}\nstate     ${s.state}\nruns      ${s.runs} (${data.render === undefined ? 'a walk-forward phase' : `ranked by ${data.render.rankBy}`})\nchunks    ${s.done}/${s.chunks} done, ${s.failed} failed for good\n`);
      if (s.failed > 0) {
        const failures = await parent.getIgnoredChildrenFailures();
        for (const [key, reason] of Object.entries(failures)) process.stdout.write(`failed    ${key.split(':').pop() ?? key}: ${reason}\n`);
      }
      if (s.failedReason !== undefined) process.stdout.write(`failed    ${s.failedReason}\n`);
      return false;
    }));
  sweep.command('results')
    .description('wait for the sweep, then write sweep.json and sweep.csv (the same files as the submitting client) and print the table')
    .argument('<id>', 'the sweep ID printed when it was submitted')
    .option('--out <dir>', 'folder for sweep.json and sweep.csv', 'backtest-report')
    .option('--allow-strategy-errors', 'exit 0 even when the strategy failed in some runs')
    .action((id: string, opts: { out: string; allowStrategyErrors?: boolean }) => withQueue(async (q) => {
      const progress = createSweepProgress(process.stderr, 'sweep');
      let result;
      try {
        result = await awaitBatch(q, sweepId(id), (s) => progress.update(s));
      } finally {
        progress.stop();
      }
      if (result.kind !== 'sweep') {
        process.stderr.write(`sweep ${sweepId(id)} is one phase of a walk-forward: run the same "backtest --walk-forward ... --queue" command again to get its report\n`);
        return true;
      }
      reportFailedChunks(result.failedChunks);
      const files = await writeRenderedSweep(opts.out, result);
      const ranked = rankedOfSweepJson(result.json);
      const rankBy = (JSON.parse(result.json) as { rankBy: string }).rankBy;
      return reportSweep({ allowStrategyErrors: opts.allowStrategyErrors === true }, ranked, rankBy, files);
    }));
}

/** Accepts the printed ID or the parent job's ID (`sweep-<id>`). */
function sweepId(text: string): string {
  return text.replace(/^sweep-/, '');
}

async function withQueue(fn: (q: SweepQueue) => Promise<boolean>): Promise<void> {
  let config: QueueConfig | undefined;
  let q: SweepQueue | undefined;
  try {
    config = queueConfigFromEnv();
    q = await openSweepQueue(config);
    if (await fn(q)) process.exitCode = 1;
  } catch (err) {
    const text = config === undefined ? (err as Error).message : safeMessage(err, config);
    process.stderr.write(`${err instanceof TradebotError ? `${err.code}: ` : ''}${text}\n`);
    process.exitCode = 1;
  } finally {
    await q?.close();
  }
}

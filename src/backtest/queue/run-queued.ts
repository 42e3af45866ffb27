import { expandGrid } from '../sweep/grid';
import type { SweepPool } from '../sweep/sweep-pool';
import type { SweepJob, SweepRunResult, SweepSetup } from '../sweep/sweep-types';
import { uploadData } from './data-blobs';
import type { BatchContent, CollectResult } from './queue-jobs';
import { strategySources } from './strategy-sources';
import { awaitBatch, submitBatch, type SubmittedBatch } from './submit-batch';
import type { BatchStatus, SweepQueue } from './sweep-queue';

export interface QueuedRunOptions {
  readonly chunkSize: number;
  /** tradebot's version, written into every chunk (workers of another version refuse it). */
  readonly version: string;
  readonly onSubmitted?: ((batch: SubmittedBatch) => void) | undefined;
  readonly onProgress?: ((status: BatchStatus) => void) | undefined;
}

/** Uploads the data (by content hash) and fingerprints the strategy: what every chunk of these batches carries. */
export async function batchContent(q: SweepQueue, setup: SweepSetup, version: string): Promise<BatchContent> {
  const data = await uploadData(q.redis, q.config.prefix, setup.data);
  return { setup, data, strategy: strategySources(setup, setup.strategiesDir), version };
}

/** `--sweep ... --queue`: the whole grid as one batch whose parent ranks the runs and renders sweep.json / sweep.csv. */
export async function runQueuedSweep(
  q: SweepQueue, setup: SweepSetup, grid: Readonly<Record<string, unknown>>, rankBy: string, o: QueuedRunOptions,
): Promise<{ batch: SubmittedBatch; result: Extract<CollectResult, { kind: 'sweep' }> }> {
  const jobs: SweepJob[] = expandGrid(grid).map((params, index) => ({ index, params }));
  const content = await batchContent(q, setup, o.version);
  const batch = await submitBatch(q, content, jobs, { chunkSize: o.chunkSize, render: { grid, rankBy } });
  o.onSubmitted?.(batch);
  const result = await awaitBatch(q, batch.id, o.onProgress);
  if (result.kind !== 'sweep') throw new Error(`sweep ${batch.id}: the parent returned ${result.kind}, not a sweep`);
  return { batch, result };
}

/**
 * A SweepPool whose runs go to the queue (`--walk-forward ... --queue`): each `run` is one batch,
 * so walk-forward's train phase and test phase are two flows, each reattachable by its ID.
 * Results arrive when the whole batch is done; `onResult` is then called for each in order.
 */
export function queuePool(q: SweepQueue, content: BatchContent, o: QueuedRunOptions): SweepPool {
  return {
    workers: 0,
    run: async (jobs, onResult) => {
      if (jobs.length === 0) return [];
      const batch = await submitBatch(q, content, jobs, { chunkSize: o.chunkSize });
      o.onSubmitted?.(batch);
      const result = await awaitBatch(q, batch.id, o.onProgress);
      if (result.kind !== 'runs') throw new Error(`batch ${batch.id}: the parent returned ${result.kind}, not runs`);
      const runs: SweepRunResult[] = [...result.results];
      runs.forEach((r, i) => onResult?.(r, i + 1, runs.length));
      return runs;
    },
    close: async () => undefined,
  };
}

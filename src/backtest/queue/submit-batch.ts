import { setTimeout as sleep } from 'node:timers/promises';
import { Job } from 'bullmq';
import { SweepQueueError } from '../../domain/errors';
import type { SweepJob } from '../sweep/sweep-types';
import { SWEEP_QUEUE_NAME } from './queue-config';
import { batchId, chunkJobId, chunksOf, parentJobId, type BatchContent, type ChunkData, type CollectData, type CollectResult, type QueueJobData, type RenderSpec } from './queue-jobs';
import { batchStatus, findBatch, KEEP_FINISHED_SECONDS, type BatchStatus, type SweepQueue } from './sweep-queue';

export interface BatchOptions {
  /** Parameter sets per chunk. */
  readonly chunkSize: number;
  /** Tries per chunk (and for the parent) before it counts as failed; retried with exponential backoff. */
  readonly attempts?: number | undefined;
  /** A sweep: the parent ranks the runs and renders sweep.json and sweep.csv. */
  readonly render?: RenderSpec | undefined;
}

export const DEFAULT_CHUNK_SIZE = 8;
export const DEFAULT_ATTEMPTS = 3;
const BACKOFF = { type: 'exponential', delay: 2000 } as const;

/** A batch on the queue: its ID, size, and whether it was there already (an earlier submit of the same sweep). */
export interface SubmittedBatch {
  readonly id: string;
  readonly chunks: number;
  readonly runs: number;
  readonly existed: boolean;
}

/**
 * Puts the batch on the queue as one flow (a parent `collect` job over `chunk` jobs), unless a batch
 * with the same ID is there already: the ID hashes everything that decides the results, so the same
 * sweep again attaches to what is queued, running or finished, and no chunk runs twice. A parent
 * that failed for good is retried (its chunks' results are kept).
 */
export async function submitBatch(q: SweepQueue, content: BatchContent, jobs: readonly SweepJob[], options: BatchOptions): Promise<SubmittedBatch> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const id = batchId(content, jobs, options.chunkSize, options.render);
  const parentId = parentJobId(id);
  const chunks = chunksOf(jobs, options.chunkSize);
  const state = await q.queue.getJobState(parentId);
  if (state === 'failed') await (await findBatch(q, parentId)).retry('failed');
  if (state !== 'unknown') return { id, chunks: chunks.length, runs: jobs.length, existed: true };
  const keep = { age: KEEP_FINISHED_SECONDS };
  const collect: CollectData = { kind: 'collect', batch: id, chunkSize: options.chunkSize, attempts, jobs, setup: content.setup, render: options.render };
  await q.flows.add({
    name: 'collect', queueName: SWEEP_QUEUE_NAME, data: collect,
    opts: { jobId: parentId, attempts, backoff: BACKOFF, removeOnComplete: keep, removeOnFail: keep },
    children: chunks.map((chunkJobs, chunk) => ({
      name: 'chunk', queueName: SWEEP_QUEUE_NAME,
      data: { kind: 'chunk', batch: id, chunk, content, jobs: chunkJobs } satisfies ChunkData,
      // A chunk that fails for good is kept as a failure the parent reports, never dropped.
      opts: { jobId: chunkJobId(id, chunk), attempts, backoff: BACKOFF, ignoreDependencyOnFailure: true, removeOnComplete: keep, removeOnFail: keep },
    })),
  });
  return { id, chunks: chunks.length, runs: jobs.length, existed: false };
}

/**
 * Waits for the batch's parent job to finish, reporting progress (polled: a client that comes back
 * later sees the same counts), and returns what the parent returned. Throws SweepQueueError when
 * the parent failed after all its attempts.
 */
export async function awaitBatch(q: SweepQueue, id: string, onProgress?: (status: BatchStatus) => void, pollMs = 500): Promise<CollectResult> {
  const parentId = parentJobId(id);
  const parent = await findBatch(q, parentId);
  for (;;) {
    const status = await batchStatus(q, parent);
    onProgress?.(status);
    if (status.state === 'completed') return (await collectedResult(q, parentId)) as CollectResult;
    if (status.state === 'failed') throw new SweepQueueError(`sweep ${id} failed: ${status.failedReason ?? 'no reason recorded'}`, { sweep: id });
    await sleep(pollMs);
  }
}

/** The finished parent's return value, or undefined when it has not finished. */
export async function collectedResult(q: SweepQueue, parentId: string): Promise<CollectResult | undefined> {
  const job = await Job.fromId<QueueJobData, CollectResult>(q.queue, parentId);
  return job !== undefined && (await job.getState()) === 'completed' ? job.returnvalue : undefined;
}

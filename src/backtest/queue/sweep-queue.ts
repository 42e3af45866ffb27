import { FlowProducer, Job, Queue } from 'bullmq';
import type Redis from 'ioredis';
import { SweepQueueError } from '../../domain/errors';
import { connectRedis, createRedis } from '../../store/redis';
import { bullConnection, safeMessage, SWEEP_QUEUE_NAME, type QueueConfig } from './queue-config';
import type { CollectData, QueueJobData } from './queue-jobs';

/** How long finished sweeps stay in the queue Redis (then BullMQ removes them as later jobs finish). */
export const KEEP_FINISHED_SECONDS = 7 * 24 * 3600;

/** The submitter's (and `tradebot sweep status|results`') handles on the queue Redis. */
export interface SweepQueue {
  readonly config: QueueConfig;
  readonly queue: Queue<QueueJobData>;
  readonly flows: FlowProducer;
  /** A plain connection for the data files (stored by content hash beside the jobs). */
  readonly redis: Redis;
  close(): Promise<void>;
}

/**
 * Connects to the queue Redis, failing within `timeoutMs` with a SweepQueueError that names the
 * server without its password. BullMQ's own connections are opened only once that one answered.
 */
export async function openSweepQueue(config: QueueConfig, timeoutMs = 5000): Promise<SweepQueue> {
  const redis = createRedis(config.target.reveal(), { lazyConnect: true, commandTimeoutMs: 60_000, connectionName: 'tradebot-sweep-data' });
  try {
    await connectRedis(redis, timeoutMs);
  } catch (err) {
    redis.disconnect();
    throw new SweepQueueError(`queue Redis at ${config.where} not reachable: ${safeMessage(err, config)}`, { where: config.where });
  }
  const connection = bullConnection(config);
  const queue = new Queue<QueueJobData>(SWEEP_QUEUE_NAME, { connection, prefix: config.prefix });
  const flows = new FlowProducer({ connection, prefix: config.prefix });
  // BullMQ emits connection trouble as events; without a listener Node would throw them.
  queue.on('error', () => undefined);
  flows.on('error', () => undefined);
  await queue.waitUntilReady();
  return {
    config, queue, flows, redis,
    close: async () => {
      await Promise.allSettled([queue.close(), flows.close()]);
      redis.disconnect();
    },
  };
}

/** The parent (collect) job of a batch, or a SweepQueueError saying the ID is unknown. */
export async function findBatch(q: SweepQueue, parentId: string): Promise<Job<QueueJobData>> {
  const job = await Job.fromId<QueueJobData>(q.queue, parentId);
  if (job === undefined || (job.data as QueueJobData).kind !== 'collect') {
    throw new SweepQueueError(`no sweep ${parentId.replace(/^sweep-/, '')} in the queue at ${q.config.where} (prefix ${q.config.prefix}): never submitted, or removed ${KEEP_FINISHED_SECONDS / 86400} days after it finished`, { sweep: parentId });
  }
  return job;
}

/** Where a batch stands: chunks finished, failed for good, and in all; the parent's state. */
export interface BatchStatus {
  readonly state: string;
  readonly chunks: number;
  readonly done: number;
  readonly failed: number;
  readonly runs: number;
  readonly failedReason?: string | undefined;
}

export async function batchStatus(q: SweepQueue, parent: Job<QueueJobData>): Promise<BatchStatus> {
  const data = parent.data as CollectData;
  const chunks = Math.ceil(data.jobs.length / data.chunkSize);
  const state = await q.queue.getJobState(parent.id as string);
  if (state === 'completed' || state === 'failed' || state === 'active' || state === 'waiting' || state === 'prioritized') {
    // The parent only leaves waiting-children once every chunk is done or failed for good.
    const counts = await parent.getDependenciesCount({ ignored: true });
    const failed = counts.ignored ?? 0;
    const fresh = state === 'failed' ? await Job.fromId<QueueJobData>(q.queue, parent.id as string) : undefined;
    return { state, chunks, done: chunks, failed, runs: data.jobs.length, failedReason: fresh?.failedReason };
  }
  const counts = await parent.getDependenciesCount();
  const failed = counts.ignored ?? 0;
  return { state, chunks, done: (counts.processed ?? 0) + failed, failed, runs: data.jobs.length };
}

import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type Redis from 'ioredis';
import { SweepQueueError } from '../../domain/errors';
import type { Logger } from '../../log/logger';
import { connectRedis, createRedis } from '../../store/redis';
import type { SweepRunResult } from '../sweep/sweep-types';
import { collectBatch } from './collect-batch';
import { fetchData } from './data-blobs';
import { bullConnection, safeMessage, SWEEP_QUEUE_NAME, type QueueConfig } from './queue-config';
import { canonicalJson } from '../../core/canonical-json';
import { type ChunkData, type CollectData, type CollectResult, type QueueJobData } from './queue-jobs';
import { checkStrategySources, strategySources } from './strategy-sources';
import { WorkerPools } from './worker-pools';

export interface SweepWorkerOptions {
  readonly config: QueueConfig;
  /** Chunks processed at once, and sweep threads per setup: the machine's cores. */
  readonly concurrency: number;
  /** This machine's strategies folder (checked against each chunk's hashes). */
  readonly strategiesDir: string;
  /** Where fetched data files are kept, by content hash. */
  readonly cacheDir: string;
  /** How long a chunk stays locked without renewal before another worker takes it over (BullMQ lockDuration). */
  readonly lockDurationMs: number;
  /** This tradebot's version: chunks submitted by another version are refused. */
  readonly version: string;
  readonly log: Logger;
}

export interface SweepWorkerService {
  /** Stops taking chunks; waits up to `drainMs` for the ones running, then abandons them (their locks lapse and another worker retries them). */
  close(drainMs: number): Promise<void>;
}

/**
 * `tradebot worker`: a BullMQ worker on the sweeps queue. A `chunk` job runs its parameter sets on
 * this machine's sweep threads (the same runSweepJob the local sweep runs) after checking the
 * chunk's version, strategy and data hashes; a `collect` job (the parent, run once every chunk is
 * done or failed for good) puts the results in order and, for a sweep, ranks and renders the files.
 */
export async function startSweepWorker(o: SweepWorkerOptions): Promise<SweepWorkerService> {
  const redis = createRedis(o.config.target.reveal(), { lazyConnect: true, commandTimeoutMs: 60_000, connectionName: 'tradebot-sweep-worker-data' });
  try {
    await connectRedis(redis, 5000);
  } catch (err) {
    redis.disconnect();
    throw new SweepQueueError(`queue Redis at ${o.config.where} not reachable: ${safeMessage(err, o.config)}`, { where: o.config.where });
  }
  const pools = new WorkerPools(o.concurrency);
  const verifiedData = new Map<string, Promise<void>>();
  const checkedStrategies = new Set<string>();
  const processor = async (job: Job<QueueJobData>): Promise<SweepRunResult[] | CollectResult> => {
    const data = job.data;
    if (data.kind === 'collect') return collect(job, data);
    return runChunk(job, data, { ...o, redis, pools, verifiedData, checkedStrategies });
  };
  const worker = new Worker<QueueJobData, SweepRunResult[] | CollectResult>(SWEEP_QUEUE_NAME, processor, {
    connection: bullConnection(o.config), prefix: o.config.prefix, concurrency: o.concurrency,
    lockDuration: o.lockDurationMs, stalledInterval: o.lockDurationMs,
  });
  worker.on('error', (err) => o.log.warn({ err: safeMessage(err, o.config) }, 'queue connection error'));
  worker.on('stalled', (jobId) => o.log.warn({ job: jobId }, 'chunk stalled: its worker stopped renewing the lock; back in the queue for another worker'));
  worker.on('failed', (job, err) => {
    if (job !== undefined) o.log.warn({ job: job.id, attempt: job.attemptsMade, reason: safeMessage(err, o.config) }, 'chunk attempt failed');
  });
  await worker.waitUntilReady();
  o.log.info({ queue: o.config.where, prefix: o.config.prefix, concurrency: o.concurrency, lockDurationMs: o.lockDurationMs }, 'sweep worker ready');
  return {
    close: async (drainMs) => {
      const drained = worker.close();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(resolve, drainMs, 'timeout').unref());
      if ((await Promise.race([drained, timer])) === 'timeout') {
        o.log.warn({ drainMs }, 'chunks still running after the drain delay: abandoning them (another worker retries them)');
        await worker.close(true);
      }
      await pools.close();
      redis.disconnect();
    },
  };
}

async function collect(job: Job<QueueJobData>, data: CollectData): Promise<CollectResult> {
  const values = await job.getChildrenValues();
  const failures = await job.getIgnoredChildrenFailures();
  return collectBatch(data, values, failures);
}

interface ChunkContext extends SweepWorkerOptions {
  readonly redis: Redis;
  readonly pools: WorkerPools;
  readonly verifiedData: Map<string, Promise<void>>;
  readonly checkedStrategies: Set<string>;
}

async function runChunk(job: Job<QueueJobData>, data: ChunkData, c: ChunkContext): Promise<SweepRunResult[]> {
  const at = { sweep: data.batch, chunk: data.chunk, runs: data.jobs.length, attempt: job.attemptsStarted };
  c.log.info(at, 'chunk started');
  const content = data.content;
  let files: { market: string; file: string }[];
  try {
    if (content.version !== c.version) {
      throw new SweepQueueError(`this worker runs tradebot ${c.version}, the sweep was submitted with ${content.version}: run the same version everywhere`, { sweep: data.batch });
    }
    const strategyKey = canonicalJson({ strategy: content.setup.strategy, params: content.setup.baseParams, sources: content.strategy });
    if (!c.checkedStrategies.has(strategyKey)) {
      checkStrategySources(content.setup.strategy, content.strategy, localSources(content.setup, c.strategiesDir));
      c.checkedStrategies.add(strategyKey);
    }
    files = await fetchData(c.redis, c.config.prefix, c.cacheDir, content.data, c.verifiedData);
  } catch (err) {
    // A refusal does not change on a retry: the chunk fails at once and the parent reports it.
    if (err instanceof SweepQueueError) {
      c.log.error({ ...at, reason: err.message }, 'chunk refused');
      throw new UnrecoverableError(err.message);
    }
    throw err;
  }
  const setup = { ...content.setup, strategiesDir: c.strategiesDir, data: files };
  const results = await c.pools.run(setup, data.jobs);
  c.log.info(at, 'chunk done');
  return results;
}

/** This worker's sources of the chunk's strategy; a strategy it cannot load is a refusal too. */
function localSources(setup: ChunkData['content']['setup'], dir: string): ReturnType<typeof strategySources> {
  try {
    return strategySources(setup, dir);
  } catch (err) {
    throw new SweepQueueError(`strategy ${setup.strategy} cannot be loaded from this worker's ${dir}: ${(err as Error).message}`, { strategy: setup.strategy });
  }
}

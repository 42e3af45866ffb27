import { Job, Worker } from 'bullmq';
import { bullConnection, queueConfigFromEnv, SWEEP_QUEUE_NAME } from '../../../src/backtest/queue/queue-config';
import type { QueueJobData } from '../../../src/backtest/queue/queue-jobs';
import { openSweepQueue, type SweepQueue } from '../../../src/backtest/queue/sweep-queue';
import { eventually } from '../../helpers/eventually';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-topology';

// Issue #32: the sweep queue finds its Redis through sentinels (TRADEBOT_QUEUE_REDIS_SENTINELS) and
// keeps working after the primary's SIGKILL: BullMQ's own connections follow the failover.
jest.setTimeout(180_000);

let group: SentinelGroup | undefined;
let q: SweepQueue | undefined;
let worker: Worker | undefined;
afterAll(async () => {
  await worker?.close(true);
  await q?.close();
  await group?.stop();
});

test('a job through sentinels, the primary SIGKILLed, and another job: both run, the queue names no password', async () => {
  group = await startSentinelGroup(2, 'tbqueue');
  const config = queueConfigFromEnv({
    TRADEBOT_QUEUE_REDIS_SENTINELS: group.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
    TRADEBOT_QUEUE_REDIS_SENTINEL_NAME: 'tbqueue', TRADEBOT_QUEUE_PREFIX: 'tbq-sentinel',
  });
  expect(config.where).toMatch(/^sentinel tbqueue at 127\.0\.0\.1:\d+,/);
  q = await openSweepQueue(config, 10_000);
  const ran: string[] = [];
  worker = new Worker(SWEEP_QUEUE_NAME, async (job: Job) => { ran.push(String(job.name)); return job.name; }, { connection: bullConnection(config), prefix: config.prefix });
  worker.on('error', () => undefined);
  const first = await q.queue.add('before', {} as QueueJobData);
  await eventually(async () => { if ((await first.getState()) !== 'completed') throw new Error('not run yet'); }, 600);

  await group.killPrimary();
  // Adding may fail while there is no primary: the submitter sees an error and adds again.
  const second = await eventually(() => q!.queue.add('after', {} as QueueJobData), 600);
  await eventually(async () => { if ((await Job.fromId(q!.queue, second.id!))?.finishedOn === undefined) throw new Error('not run yet'); }, 600);
  expect(ran).toEqual(['before', 'after']);
});

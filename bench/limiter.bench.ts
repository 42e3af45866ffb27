import { startThrowawayRedis } from '../test/helpers/redis-server';
import { LIMITS, type LimitTable } from '../src/limiter/limits';
import { RedisTokenBucket, type GrantEvent } from '../src/limiter/redis-token-bucket';
import { StoreKeys } from '../src/store/keys';
import { connectRedis, createRedis } from '../src/store/redis';
import type Redis from 'ioredis';
import type { BenchRow } from './bench-types';

const REPLICAS = 3;
const WORKERS_PER_REPLICA = 16;
const LIMIT = { capacity: 200, windowMs: 2000 };
const DURATION_MS = 10_000;
const SAFETY_MARGIN = 0.98;
const BURST_FRACTION = 0.02;

/** Most grants inside any closed window [t, t + w] (t at each grant); and how many such windows exceed `limit`. */
function windows(times: number[], w: number, limit: number): { worst: number; over: number } {
  const t = [...times].sort((a, b) => a - b);
  let worst = 0;
  let over = 0;
  let hi = 0;
  for (let lo = 0; lo < t.length; lo++) {
    while (hi < t.length && (t[hi] as number) <= (t[lo] as number) + w) hi++;
    worst = Math.max(worst, hi - lo);
    if (hi - lo > limit) over++;
  }
  return { worst, over };
}

/**
 * Three replicas (three RedisTokenBucket instances, each with its own connection, in this process)
 * saturate one shared limit of 200 per 2 s for 10 s. Utilisation = grants per window relative to
 * the configured 200; windows are checked on the Redis clock (what the bucket controls) and on the
 * client clock (when callers were released: closer to what the exchange sees).
 */
export async function run(): Promise<BenchRow[]> {
  const server = await startThrowawayRedis();
  const clients: Redis[] = [];
  try {
    const limits: LimitTable = { ...LIMITS, orders: LIMIT };
    const keys = new StoreKeys('benchacct', 'bench');
    const redisTimes: number[] = [];
    const clientTimes: number[] = [];
    const onGrant = (e: GrantEvent): void => {
      for (let i = 0; i < e.count; i++) redisTimes.push(e.redisTimeUs / 1000);
    };
    const replicas: RedisTokenBucket[] = [];
    for (let i = 0; i < REPLICAS; i++) {
      const redis = createRedis(server.url, { lazyConnect: true });
      clients.push(redis);
      await connectRedis(redis);
      replicas.push(new RedisTokenBucket({ redis, keys, limits, safetyMargin: SAFETY_MARGIN, burstFraction: BURST_FRACTION, onGrant }));
    }
    const params = (replicas[0] as RedisTokenBucket).paramsFor('orders');
    const start = Date.now();
    const end = start + DURATION_MS;
    const worker = async (bucket: RedisTokenBucket): Promise<void> => {
      while (Date.now() < end) {
        await bucket.acquire('orders');
        clientTimes.push(Date.now());
      }
    };
    await Promise.all(replicas.flatMap((b) => Array.from({ length: WORKERS_PER_REPLICA }, () => worker(b))));
    const elapsed = Date.now() - start;
    const perWindow = (clientTimes.length / elapsed) * LIMIT.windowMs;
    const onRedis = windows(redisTimes, LIMIT.windowMs, LIMIT.capacity);
    const onClient = windows(clientTimes, LIMIT.windowMs, LIMIT.capacity);
    const setup = `${REPLICAS} replicas x ${WORKERS_PER_REPLICA} callers, limit ${LIMIT.capacity}/${LIMIT.windowMs} ms, margin ${SAFETY_MARGIN}, burst B=${params.capacity}, budget L=${params.windowBudget}`;
    return [
      { name: 'limiter utilisation of the configured limit', value: Number(((perWindow / LIMIT.capacity) * 100).toFixed(1)), unit: '%', note: `${clientTimes.length} grants in ${elapsed} ms; ${setup}` },
      { name: 'limiter worst sliding window (Redis clock)', value: onRedis.worst, unit: 'requests', note: `limit ${LIMIT.capacity}; over-limit windows: ${onRedis.over}` },
      { name: 'limiter worst sliding window (client clock)', value: onClient.worst, unit: 'requests', note: `limit ${LIMIT.capacity}; over-limit windows: ${onClient.over}` },
    ];
  } finally {
    for (const c of clients) c.disconnect();
    await server.stop();
  }
}

if (require.main === module) {
  run().then((rows) => console.table(rows), (e: unknown) => { console.error(e); process.exitCode = 1; });
}

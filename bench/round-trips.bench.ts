import type Redis from 'ioredis';
import { InMemoryRateLimiter } from '../src/limiter/in-memory-limiter';
import { RedisTokenBucket } from '../src/limiter/redis-token-bucket';
import { StoreKeys } from '../src/store/keys';
import { RedisLeaseStore } from '../src/store/lease-store';
import { RedisOrderStore } from '../src/store/order-store';
import { connectRedis, createRedis } from '../src/store/redis';
import { RedisNonceSource } from '../src/exchange/nonce/redis-nonce-source';
import { startThrowawayRedis } from '../test/helpers/redis-server';
import type { BenchRow } from './bench-types';
import { benchIntent, InstantExchange, readyExecution } from './executor.bench';

const N = 500;

/** Counts the commands this client sends (one per round trip outside pipelines; EVALSHA counts once). */
function countCommands(redis: Redis): { readonly count: () => number; readonly reset: () => void } {
  let n = 0;
  const original = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...args: Parameters<Redis['sendCommand']>) => {
    n += 1;
    return original(...args);
  }) as Redis['sendCommand'];
  return { count: () => n, reset: () => { n = 0; } };
}

/** Top-level script runs and commands seen by the server (INFO commandstats), excluding INFO itself. */
async function serverCalls(redis: Redis): Promise<{ evalsha: number; total: number }> {
  const info = await redis.info('commandstats');
  let evalsha = 0;
  let total = 0;
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (!m || m[1] === 'info') continue;
    total += Number(m[2]);
    if (m[1] === 'evalsha' || m[1] === 'eval') evalsha += Number(m[2]);
  }
  return { evalsha, total };
}

async function measure(redis: Redis, prefix: string, withNonceAndBucket: boolean): Promise<{ perOrder: number; scriptsPerOrder: number }> {
  const keys = StoreKeys.forApiKey('bench-key', prefix);
  const nonce = new RedisNonceSource({ redis, prefix });
  const bucket = new RedisTokenBucket({ redis, keys });
  const memLimiter = new InMemoryRateLimiter();
  // What the HTTP client does per order request when Redis holds the nonce and the shared bucket.
  const beforeSend = withNonceAndBucket
    ? async () => { await bucket.acquire('orders'); await nonce.nextNonce('bench-key'); }
    : async () => { await memLimiter.acquire('orders'); };
  const execution = await readyExecution(new InstantExchange(beforeSend), new RedisOrderStore({ redis, keys }), new RedisLeaseStore(redis, keys));
  for (let i = 0; i < 20; i++) await execution.executor.submit(benchIntent(i)); // scripts loaded, caches warm
  const counter = countCommands(redis);
  const before = await serverCalls(redis);
  counter.reset();
  for (let i = 20; i < 20 + N; i++) {
    const r = await execution.executor.submit(benchIntent(i));
    if (r.outcome !== 'accepted') throw new Error(`unexpected ${r.outcome}`);
  }
  const sent = counter.count();
  const after = await serverCalls(redis);
  return { perOrder: sent / N, scriptsPerOrder: (after.evalsha - before.evalsha) / N };
}

/** Redis round trips per submitted (accepted) stop-limit order on the happy path. */
export async function run(): Promise<BenchRow[]> {
  const server = await startThrowawayRedis();
  const redis = createRedis(server.url, { lazyConnect: true });
  try {
    await connectRedis(redis);
    const journal = await measure(redis, 'rt-journal', false);
    const full = await measure(redis, 'rt-full', true);
    return [
      { name: 'Redis round trips per accepted order: journal (recordSubmit + outcome CAS)', value: journal.perOrder, unit: 'round trips', note: `goal <= 2; ${journal.scriptsPerOrder} script runs/order at the server; ${N} orders` },
      { name: 'Redis round trips per accepted order incl. Redis nonce + shared token bucket', value: full.perOrder, unit: 'round trips', note: `${full.scriptsPerOrder} script runs/order` },
    ];
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

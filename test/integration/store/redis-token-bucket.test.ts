import { StoreUnavailableError } from '../../../src/domain/errors';
import { LIMITS, type LimitTable } from '../../../src/limiter/limits';
import { RedisTokenBucket, type GrantEvent } from '../../../src/limiter/redis-token-bucket';
import { StoreKeys } from '../../../src/store/keys';
import { RedisTestContext, TOPOLOGIES } from './redis-test-context';

/** The most grants inside any closed window [t, t + windowUs] (t at each grant). */
function maxInAnyWindow(timesUs: number[], windowUs: number): number {
  const t = [...timesUs].sort((x, y) => x - y);
  let best = 0;
  let hi = 0;
  for (let lo = 0; lo < t.length; lo++) {
    while (hi < t.length && (t[hi] as number) <= (t[lo] as number) + windowUs) hi++;
    best = Math.max(best, hi - lo);
  }
  return best;
}

const small: LimitTable = { ...LIMITS, orders: { capacity: 40, windowMs: 1000 } };

describe.each(TOPOLOGIES)('RedisTokenBucket (shared by replicas) on %s Redis', (topology) => {
  const ctx = new RedisTestContext(topology);
  afterEach(() => ctx.cleanup());

  test('3 replicas in parallel never exceed the limit in any window, on the Redis clock', async () => {
    const keys = StoreKeys.forApiKey('bucket-key', ctx.prefix());
    const grants: number[] = [];
    const onGrant = (e: GrantEvent): void => {
      for (let i = 0; i < e.count; i++) grants.push(e.redisTimeUs);
    };
    const replicas = await Promise.all(
      [0, 1, 2].map(async () => new RedisTokenBucket({ redis: await ctx.connection(), keys, limits: small, safetyMargin: 1, burstFraction: 0.1, onGrant })),
    );
    const params = (replicas[0] as RedisTokenBucket).paramsFor('orders');
    expect(params).toMatchObject({ capacity: 4, windowBudget: 40 });
    // 3 x 45 callers queued at once: 135 grants take about 3.6 s at 36 per second after the burst.
    await Promise.all(replicas.flatMap((r) => Array.from({ length: 45 }, () => r.acquire('orders'))));
    expect(grants).toHaveLength(135);
    const worst = maxInAnyWindow(grants, params.windowMs * 1000);
    expect(worst).toBeLessThanOrEqual(params.windowBudget);
    expect(worst).toBeLessThanOrEqual(small.orders.capacity);
  });

  test('in one process: FIFO, high priority first, aborted waiters leave the queue', async () => {
    const keys = StoreKeys.forApiKey('bucket-key', ctx.prefix());
    const limits: LimitTable = { ...LIMITS, orders: { capacity: 20, windowMs: 1000 } };
    const bucket = new RedisTokenBucket({ redis: await ctx.connection(), keys, limits, safetyMargin: 1, burstFraction: 0.1 });
    await Promise.all([bucket.acquire('orders'), bucket.acquire('orders')]); // empty the burst (2)
    const order: string[] = [];
    const controller = new AbortController();
    const waits = [
      bucket.acquire('orders').then(() => order.push('n1')),
      bucket.acquire('orders', { signal: controller.signal }).then(() => order.push('aborted?'), (e: unknown) => order.push(`abort:${String(e)}`)),
      bucket.acquire('orders').then(() => order.push('n2')),
      bucket.acquire('orders', { priority: 'high' }).then(() => order.push('h1')),
      bucket.acquire('orders', { priority: 'high' }).then(() => order.push('h2')),
    ];
    controller.abort('stop');
    await Promise.all(waits);
    expect(order).toEqual(['abort:stop', 'h1', 'h2', 'n1', 'n2']);
    expect(await bucket.available('orders')).toBeGreaterThanOrEqual(0);
  });

  test('an already aborted signal rejects at once; a Redis failure rejects every waiter with StoreUnavailableError', async () => {
    const keys = StoreKeys.forApiKey('bucket-key', ctx.prefix());
    const redis = await ctx.connection();
    const bucket = new RedisTokenBucket({ redis, keys });
    await expect(bucket.acquire('orders', { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
    expect(await bucket.available('orders')).toBe(bucket.paramsFor('orders').capacity);
    redis.disconnect();
    const results = await Promise.allSettled([bucket.acquire('orders'), bucket.acquire('orders', { priority: 'high' })]);
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof StoreUnavailableError).toBe(true);
    await expect(bucket.available('orders')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

import { ManualClock, SystemClock } from '../../../src/core/clock';
import { RedisPrimaryWatch, type PrimaryBack } from '../../../src/store/redis-primary-watch';
import { StoreUnavailableError } from '../../../src/domain/errors';
import { LIMITS } from '../../../src/limiter/limits';
import { RedisTokenBucket } from '../../../src/limiter/redis-token-bucket';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import type { Lease } from '../../../src/store/lease-store-port';
import { RedisOrderStore } from '../../../src/store/order-store';
import { checkRedisHealth, connectRedis, createRedis } from '../../../src/store/redis';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { startThrowawayRedis, type ThrowawayRedis } from '../../helpers/redis-server';
import { newOrder } from './order-store.contract';
import { eventually } from '../../helpers/eventually';

describe('Redis restart: fail fast while down, recover by itself', () => {
  let server: ThrowawayRedis | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  test('every store operation throws StoreUnavailableError while Redis is down and works again after', async () => {
    server = await startThrowawayRedis();
    const port = server.port;
    const redis = createRedis(server.url, { lazyConnect: true, maxReconnectDelayMs: 200, commandTimeoutMs: 1000 });
    try {
      await connectRedis(redis);
      const keys = StoreKeys.forApiKey('restart-key', 'tbtest-restart');
      const clock = new ManualClock(1_000);
      const orders = new RedisOrderStore({ redis, keys, clock });
      const leases = new RedisLeaseStore(redis, keys);
      const nonces = new RedisNonceSource({ redis });
      const bucket = new RedisTokenBucket({ redis, keys, limits: LIMITS });
      const lease = (await leases.acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
      const first = newOrder();
      await orders.recordSubmit(first, lease);
      expect((await checkRedisHealth(redis)).ok).toBe(true);

      await server.stop();
      const down: Promise<unknown>[] = [
        orders.recordIntent(newOrder()),
        orders.recordSubmit(newOrder(), lease),
        orders.transition(first.clientOrderId, 'accept', {}, { expectedStatus: 'submitted' }),
        orders.get(first.clientOrderId),
        orders.listLive(),
        orders.countLive('sma-cross', 'BTC_USDT'),
        leases.acquire('sma-cross', 'ETH_USDT', 'replica-a', 1000),
        leases.renew(lease),
        nonces.nextNonce('restart-key'),
        bucket.acquire('orders'),
      ];
      for (const result of await Promise.allSettled(down)) {
        expect(result.status).toBe('rejected');
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(StoreUnavailableError);
      }
      const health = await checkRedisHealth(redis, 200);
      expect(health.ok).toBe(false);

      server = await startThrowawayRedis(port); // same port, empty (no persistence)
      await eventually(() => orders.listLive());
      expect((await checkRedisHealth(redis)).ok).toBe(true);
      // The data died with the server; the scripts were reloaded on the new connection (NOSCRIPT -> EVAL).
      const again = (await leases.acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
      const second = newOrder();
      expect((await orders.recordSubmit(second, again)).record.status).toBe('submitted');
      expect((await orders.transition(second.clientOrderId, 'accept', {}, { expectedStatus: 'submitted' })).status).toBe('open');
      expect(await nonces.nextNonce('restart-key')).toBeGreaterThan(0);
      await bucket.acquire('orders');
    } finally {
      redis.disconnect();
    }
  });
});

describe('RedisPrimaryWatch', () => {
  test('a restarted server is lost, then back as a restart (same address, another run id), timed', async () => {
    let server = await startThrowawayRedis();
    const redis = createRedis(server.url, { lazyConnect: true, maxReconnectDelayMs: 100 });
    const seen: string[] = [];
    const backs: PrimaryBack[] = [];
    const watch = new RedisPrimaryWatch(redis, new SystemClock(), { onLost: () => seen.push('lost'), onBack: (b) => { seen.push('back'); backs.push(b); } });
    try {
      await connectRedis(redis);
      await watch.start();
      await server.stop();
      server = await startThrowawayRedis(server.port);
      await eventually(async () => { if (backs.length === 0) throw new Error('not back yet'); });
      expect(seen).toEqual(['lost', 'back']);
      expect(backs[0]).toMatchObject({ change: 'restart', address: `127.0.0.1:${server.port}` });
      expect(backs[0]!.downMs).toBeGreaterThan(0);
    } finally {
      watch.stop();
      redis.disconnect();
      await server.stop();
    }
  });
});

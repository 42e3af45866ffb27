import { ManualClock } from '../../../src/core/clock';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import { RedisOrderStore } from '../../../src/store/order-store';
import { connectRedis, createRedisCluster } from '../../../src/store/redis';
import { testClusterNodes } from './redis-test-context';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { RedisTokenBucket } from '../../../src/limiter/redis-token-bucket';
import { surveyTimeline } from '../../../src/store/timeline-keys';
import { newOrder, orderStoreContract } from './order-store.contract';

// The journal and leases on a real 3-primary Redis Cluster (issue #32): every key of an account shares one hash slot.
// The run's Cluster (Jest globalSetup); each test's keys under an account of its own.
const nodes = testClusterNodes();
let tests = 0;

orderStoreContract('Redis Cluster', async () => {
  const redis = createRedisCluster({ kind: 'cluster', nodes, tls: false }, { lazyConnect: true });
  await connectRedis(redis, 10_000);
  const keys = StoreKeys.forApiKey(`cluster-key-${tests++}`, 'tbtest-cluster');
  const clock = new ManualClock(1_000);
  return {
    orders: new RedisOrderStore({ redis, keys, clock }),
    leases: new RedisLeaseStore(redis, keys),
    clock,
    passLeaseTime: (ms) => new Promise((r) => setTimeout(r, ms)),
    close: async () => { await redis.quit().catch(() => redis.disconnect()); },
  };
});

describe('the other Redis stores on the Cluster', () => {
  test('nonces keep rising, the token bucket takes and refuses, and a namespace scan finds the account\'s keys on its primary', async () => {
    const redis = createRedisCluster({ kind: 'cluster', nodes, tls: false }, { lazyConnect: true });
    try {
      await connectRedis(redis, 10_000);
      const keys = StoreKeys.forApiKey('cluster-other', 'tbtest-cluster');
      const nonces = new RedisNonceSource({ redis, prefix: keys.prefix });
      const seen: number[] = [];
      for (let i = 0; i < 20; i++) seen.push(await nonces.nextNonce('cluster-other'));
      expect(seen.every((n, i) => i === 0 || n > seen[i - 1]!)).toBe(true);
      const bucket = new RedisTokenBucket({ redis, keys });
      expect(await bucket.available('orders')).toBeGreaterThan(0);
      await bucket.acquire('orders');
      const orders = new RedisOrderStore({ redis, keys, clock: new ManualClock(1_000) });
      await orders.recordIntent(newOrder());
      const survey = await surveyTimeline(redis, keys, () => false);
      expect(survey.orders).toBe(1);
    } finally {
      redis.disconnect();
    }
  });
});

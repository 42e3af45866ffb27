import { ManualClock, SystemClock } from '../../../src/core/clock';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import type { Lease } from '../../../src/store/lease-store-port';
import { RedisOrderStore } from '../../../src/store/order-store';
import { connectRedis, createRedis } from '../../../src/store/redis';
import { RedisPrimaryWatch, type PrimaryBack } from '../../../src/store/redis-primary-watch';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-topology';
import { newOrder } from './order-store.contract';

// Issue #32: the store finds its primary through three sentinels and follows a failover.
jest.setTimeout(120_000);

let group: SentinelGroup | undefined;
afterAll(async () => { await group?.stop(); });

/** Retries `fn` while the client finds the new primary (bounded: 60 s, a loaded machine stretches the failover). */
async function eventually<T>(fn: () => Promise<T>, attempts = 600): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

test('through sentinels: a record confirmed by a replica survives the primary\'s SIGKILL; the client follows the failover by itself', async () => {
  group = await startSentinelGroup(2);
  const redis = createRedis({ kind: 'sentinel', sentinels: group.sentinels, name: group.name, tls: false }, { lazyConnect: true, maxReconnectDelayMs: 200 });
  const backs: PrimaryBack[] = [];
  const watch = new RedisPrimaryWatch(redis, new SystemClock(), { onLost: () => undefined, onBack: (b) => backs.push(b) });
  try {
    await connectRedis(redis, 10_000);
    await watch.start();
    const keys = StoreKeys.forApiKey('sentinel-key', 'tbtest-sentinel');
    const orders = new RedisOrderStore({ redis, keys, clock: new ManualClock(1_000), replicaAcks: { replicas: 1, timeoutMs: 1000 } });
    const lease = (await new RedisLeaseStore(redis, keys).acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
    const confirmed = newOrder();
    expect((await orders.recordSubmit(confirmed, lease)).created).toBe(true);

    const { old, now } = await group.killPrimary();
    expect(now).not.toBe(old);
    const after = await eventually(() => orders.get(confirmed.clientOrderId));
    expect(after?.status).toBe('submitted');
    await eventually(async () => { if (backs.length === 0) throw new Error('not back yet'); });
    expect(backs[0]).toMatchObject({ change: 'failover', address: `127.0.0.1:${now}` });
    // Writes go to the new primary (a replica would refuse them: READONLY).
    await eventually(() => orders.recordIntent(newOrder()));
  } finally {
    watch.stop();
    redis.disconnect();
  }
});

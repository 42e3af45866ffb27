import { ManualClock, SystemClock } from '../../../src/core/clock';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import type { Lease } from '../../../src/store/lease-store-port';
import { RedisOrderStore } from '../../../src/store/order-store';
import { connectRedis, createRedis } from '../../../src/store/redis';
import { RedisPrimaryWatch, type PrimaryBack } from '../../../src/store/redis-primary-watch';
import { startSentinelGroup, type SentinelGroup } from '../../helpers/redis-topology';
import { newOrder } from './order-store.contract';
import { eventually } from '../../helpers/eventually';

// Issue #32: the store finds its primary through three sentinels and follows a failover.
jest.setTimeout(120_000);

let group: SentinelGroup | undefined;
afterAll(async () => { await group?.stop(); });

/** A client through the group's sentinels, with the daemon's primary watch and a flag for a client that ends. */
function followedClient(g: SentinelGroup) {
  const redis = createRedis({ kind: 'sentinel', sentinels: g.sentinels, name: g.name, tls: false }, { lazyConnect: true, maxReconnectDelayMs: 200 });
  const backs: PrimaryBack[] = [];
  const watch = new RedisPrimaryWatch(redis, new SystemClock(), { onLost: () => undefined, onBack: (b) => backs.push(b) });
  const state = { ended: false };
  redis.once('end', () => { state.ended = true; });
  const start = async (): Promise<void> => { await connectRedis(redis, 10_000); await watch.start(); };
  const close = (): void => { watch.stop(); redis.disconnect(); };
  return { redis, backs, state, start, close };
}

test('through sentinels: a record confirmed by a replica survives the primary\'s SIGKILL; the client follows the failover by itself', async () => {
  group = await startSentinelGroup(2);
  // The switch is announced while the client reconnects (its old primary just died): it must not end there.
  const { redis, backs, state, start, close } = followedClient(group);
  try {
    await start();
    const keys = StoreKeys.forApiKey('sentinel-key', 'tbtest-sentinel');
    const orders = new RedisOrderStore({ redis, keys, clock: new ManualClock(1_000), replicaAcks: { replicas: 1, timeoutMs: 1000 } });
    const lease = (await new RedisLeaseStore(redis, keys).acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
    const confirmed = newOrder();
    expect((await orders.recordSubmit(confirmed, lease)).created).toBe(true);

    const { old, now } = await group.killPrimary();
    expect(now).not.toBe(old);
    const after = await eventually(() => orders.get(confirmed.clientOrderId), 600);
    expect(after?.status).toBe('submitted');
    await eventually(async () => { if (backs.length === 0) throw new Error('not back yet'); }, 600);
    expect(backs[0]).toMatchObject({ change: 'failover', address: `127.0.0.1:${now}` });
    // Writes go to the new primary (a replica would refuse them: READONLY).
    await eventually(() => orders.recordIntent(newOrder()), 600);
    expect(state.ended).toBe(false);
  } finally {
    close();
  }
});

test('a planned failover (the old primary stays up as a replica): the client moves to the new primary, writes go there, the client never ends', async () => {
  group ??= await startSentinelGroup(2);
  const { redis, backs, state, start, close } = followedClient(group);
  try {
    await start();
    const orders = new RedisOrderStore({ redis, keys: StoreKeys.forApiKey('sentinel-planned', 'tbtest-sentinel'), clock: new ManualClock(1_000) });
    await orders.recordIntent(newOrder());
    const { old, now } = await group.failover();
    expect(now).not.toBe(old);
    // No command is needed to move: the switch is heard and the ready connection dropped (the
    // sentinels' CLIENT KILL on the demoted primary may first bring it back to the old address).
    await eventually(async () => { if (!backs.some((b) => b.change === 'failover')) throw new Error('not moved yet'); }, 600);
    expect(backs.find((b) => b.change === 'failover')).toMatchObject({ address: `127.0.0.1:${now}` });
    await eventually(() => orders.recordIntent(newOrder()), 600);
    expect(state.ended).toBe(false);
  } finally {
    close();
  }
});

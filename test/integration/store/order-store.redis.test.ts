import { ManualClock } from '../../../src/core/clock';
import { LeaseLostError, StaleStateError } from '../../../src/domain/errors';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import type { Lease } from '../../../src/store/lease-store-port';
import { RedisOrderStore } from '../../../src/store/order-store';
import { newOrder, orderStoreContract } from './order-store.contract';
import { RedisTestContext } from './redis-test-context';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

orderStoreContract('Redis', async () => {
  const ctx = new RedisTestContext();
  const redis = await ctx.client();
  const keys = StoreKeys.forApiKey('test-api-key', ctx.prefix());
  const clock = new ManualClock(1_000);
  return {
    orders: new RedisOrderStore({ redis, keys, clock }),
    leases: new RedisLeaseStore(redis, keys),
    clock,
    passLeaseTime: sleep,
    close: () => ctx.cleanup(),
  };
});

describe('RedisOrderStore, Redis-specific behaviour', () => {
  const ctx = new RedisTestContext();
  afterEach(() => ctx.cleanup());

  async function setup(maxCasRetries?: number): Promise<{ a: RedisOrderStore; b: RedisOrderStore; lease: Lease; keys: StoreKeys }> {
    const keys = StoreKeys.forApiKey('test-api-key', ctx.prefix());
    const r1 = await ctx.client();
    const r2 = await ctx.client();
    const lease = (await new RedisLeaseStore(r1, keys).acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
    const opts = maxCasRetries === undefined ? {} : { maxCasRetries };
    return { a: new RedisOrderStore({ redis: r1, keys, ...opts }), b: new RedisOrderStore({ redis: r2, keys, ...opts }), lease, keys };
  }

  test('a lost compare-and-set without retries left is a StaleStateError, and nothing is written', async () => {
    const { a, b, lease } = await setup(0);
    const input = newOrder();
    await a.recordSubmit(input, lease);
    await b.transition(input.clientOrderId, 'accept', {}, { expectedStatus: 'submitted' }); // the other replica moved it
    await expect(a.transition(input.clientOrderId, 'fill', { filledAmount: '1' }, { expectedStatus: 'submitted' })).rejects.toBeInstanceOf(StaleStateError);
    const record = await a.get(input.clientOrderId);
    expect(record).toMatchObject({ status: 'open', filledAmount: '0' });
    expect(record?.history.map((h) => h.event)).toEqual(['send', 'accept']);
  });

  test('concurrent writers on two connections: every transition is applied exactly once', async () => {
    const { a, b, lease } = await setup();
    const input = newOrder();
    await a.recordSubmit(input, lease);
    await a.transition(input.clientOrderId, 'accept');
    // Both replicas report partial fills at once, each guessing the status it last saw.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).transition(input.clientOrderId, 'fill_partially', { reason: `poll ${i}` }, { expectedStatus: 'open' })),
    );
    expect(results.every((r) => r.status === 'partially_filled')).toBe(true);
    const record = await a.get(input.clientOrderId);
    expect(record?.history.filter((h) => h.event === 'fill_partially')).toHaveLength(10);
    expect(record?.history.filter((h) => h.from === 'open')).toHaveLength(1);
  });

  test('happy path of one submitted order costs 2 round trips (recordSubmit + guessed transition)', async () => {
    const { a, lease } = await setup();
    const redis = (a as unknown as { redis: import('ioredis').default }).redis;
    const input = newOrder();
    await a.recordSubmit(input, lease); // loads the scripts (EVAL) once
    const monitor = await redis.duplicate().monitor();
    const seen: string[] = [];
    // MONITOR shows every client of the shared test Redis (other test files run at the same time):
    // only this store's connection counts.
    const ours = `:${(redis as unknown as { stream: { localPort: number } }).stream.localPort}`;
    monitor.on('monitor', (_time: string, args: string[], source: string) => { if (source.endsWith(ours)) seen.push(String(args[0]).toLowerCase()); });
    const second = newOrder();
    await a.recordSubmit(second, lease);
    await a.transition(second.clientOrderId, 'accept', { orderId: 7 }, { expectedStatus: 'submitted' });
    // MONITOR's stream lags the commands on a loaded machine: wait for it (bounded), then count.
    for (let i = 0; i < 40 && seen.filter((c) => c === 'evalsha' || c === 'eval').length < 2; i++) await sleep(50);
    await sleep(50);
    monitor.disconnect();
    const commands = seen.filter((c) => c !== 'monitor');
    // Commands inside scripts are logged too (as "lua" calls); count only the client's own.
    expect(commands.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(2);
  });

  test('after Redis lost the fencing counter, a reused token number does not let the old owner submit', async () => {
    const { a, lease, keys } = await setup();
    const redis = (a as unknown as { redis: import('ioredis').default }).redis;
    await redis.del(keys.lease('sma-cross', 'BTC_USDT'), keys.fence('sma-cross', 'BTC_USDT')); // as after a restart
    const b = (await new RedisLeaseStore(redis, keys).acquire('sma-cross', 'BTC_USDT', 'replica-b', 60_000)) as Lease;
    expect(b.token).toBe(lease.token); // the counter started again
    await expect(a.recordSubmit(newOrder(), lease)).rejects.toBeInstanceOf(LeaseLostError);
    expect((await a.recordSubmit(newOrder(), b)).created).toBe(true);
  });

  test('keys carry the account hash tag and never the API key', async () => {
    const { a, lease, keys } = await setup();
    const input = newOrder();
    await a.recordSubmit(input, lease);
    const redis = (a as unknown as { redis: import('ioredis').default }).redis;
    const found = await redis.keys(`${keys.prefix}:*`);
    expect(found.length).toBeGreaterThan(0);
    for (const k of found) {
      expect(k.startsWith(`${keys.prefix}:{${keys.account}}:`)).toBe(true);
      expect(k).not.toContain('test-api-key');
    }
  });
});

import { StoreKeys } from '../../../src/store/keys';
import { RedisTradingStateStore } from '../../../src/trading-state/trading-state-store';
import { RedisTestContext, TOPOLOGIES } from './redis-test-context';

/** The Redis trading-state store on a real Redis: seq allocated by the store, epochs, replica reports timed by the store's clock. */
describe.each(TOPOLOGIES)('on %s Redis', (topology) => {
  const ctx = new RedisTestContext(topology);
  afterEach(() => ctx.cleanup());

  async function store(): Promise<{ s: RedisTradingStateStore; keys: StoreKeys }> {
    const keys = new StoreKeys('acct1', ctx.prefix());
    return { s: new RedisTradingStateStore(await ctx.connection(), keys), keys };
  }

  test('concurrent writers from many connections each get their own seq; the stored record is the one with the last seq, whatever its atMs', async () => {
    const { keys } = await store();
    const writers = await Promise.all(Array.from({ length: 8 }, async () => new RedisTradingStateStore(await ctx.connection(), keys)));
    const positions = await Promise.all(writers.map((w, i) => w.write({ state: i % 2 === 0 ? 'halted' : 'active', reason: `w${i}`, atMs: 10_000 - i })));
    expect(positions.map((p) => p.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(positions.map((p) => p.epoch)).size).toBe(1);
    const last = positions.findIndex((p) => p.seq === 8);
    expect(await writers[0]!.read()).toMatchObject({ reason: `w${last}`, seq: 8, epoch: positions[0]!.epoch, atMs: 10_000 - last });
  });

  test('a record written before seqs existed (state, reason, atMs only) is read as seq 0, and the next write starts an epoch at seq 1', async () => {
    const { s, keys } = await store();
    const redis = await ctx.connection();
    await redis.hset(keys.tradingState(), 'state', 'halted', 'reason', 'old cli', 'atMs', '5');
    expect(await s.read()).toEqual({ state: 'halted', reason: 'old cli', atMs: 5, seq: 0, epoch: '' });
    const p = await s.write({ state: 'active', reason: 'new cli', atMs: 6 });
    expect(p.seq).toBe(1);
    expect(p.epoch).not.toBe('');
    // The store lost its data: the next write is seq 1 again, in another epoch (which a daemon applies).
    await redis.del(keys.tradingState());
    const again = await s.write({ state: 'halted', reason: 'after the loss', atMs: 7 });
    expect(again.seq).toBe(1);
    expect(again.epoch).not.toBe(p.epoch);
  });

  test('replica reports: the latest per instance, aged by the store\'s clock', async () => {
    const { s } = await store();
    await s.reportApplied({ instance: 'a:1', epoch: 'e', appliedSeq: 3, state: 'halted', atMs: 0 });
    await s.reportApplied({ instance: 'a:1', epoch: 'e', appliedSeq: 4, state: 'active', atMs: 0 });
    await s.reportApplied({ instance: 'b:2', epoch: 'e', appliedSeq: 4, state: 'active', atMs: 0 });
    const replicas = (await s.readReplicas()).sort((x, y) => x.instance.localeCompare(y.instance));
    expect(replicas.map((r) => [r.instance, r.appliedSeq, r.state])).toEqual([['a:1', 4, 'active'], ['b:2', 4, 'active']]);
    for (const r of replicas) expect(r.ageMs).toBeLessThan(2000);
  });
});

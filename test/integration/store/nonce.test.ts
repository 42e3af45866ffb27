import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import { NotReadyError, StoreUnavailableError } from '../../../src/domain/errors';
import { StoreKeys } from '../../../src/store/keys';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { findScriptsDir } from '../../../src/store/scripts';
import { RedisTestContext, testRedisUrl } from './redis-test-context';

interface ChildResult {
  nonces: number[];
  nows: number[];
  throttled: number;
}

function runChild(key: string, count: number, maxLeadMs: number): Promise<ChildResult> {
  const script = join(__dirname, 'fixtures', 'nonce-child.js');
  const lua = join(findScriptsDir(), 'reserve-nonce.lua');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, testRedisUrl(), key, String(count), lua, String(maxLeadMs)], {
      cwd: join(__dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ChildResult) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe('nonce allocation in Redis', () => {
  const ctx = new RedisTestContext();
  afterEach(() => ctx.cleanup());

  test('4 concurrent processes get unique nonces, strictly increasing per process, never beyond the lead', async () => {
    const keys = StoreKeys.forApiKey('shared-key', ctx.prefix());
    await ctx.client(); // so cleanup has a connection
    const maxLeadMs = 50; // small, so 4 busy processes run into the throttle
    const results = await Promise.all([0, 1, 2, 3].map(() => runChild(keys.nonce(), 300, maxLeadMs)));
    const all = results.flatMap((r) => r.nonces);
    expect(all).toHaveLength(1200);
    expect(new Set(all).size).toBe(1200);
    for (const r of results) {
      for (let i = 1; i < r.nonces.length; i++) expect(r.nonces[i]).toBeGreaterThan(r.nonces[i - 1] as number);
      // nonce = max(now, last + 1) and last + 1 may lead `now` by at most maxLeadMs
      r.nonces.forEach((n, i) => {
        const now = r.nows[i] as number;
        expect(n).toBeGreaterThanOrEqual(now);
        expect(n - now).toBeLessThanOrEqual(maxLeadMs);
      });
    }
  }, 60_000); // four Node processes start: seconds each on a 2-core machine running the suite

  test('throttles instead of running ahead of the clock, then gives up with NotReadyError', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const source = new RedisNonceSource({ redis, prefix, clock, maxLeadMs: 50, sleep: async (ms) => clock.advanceMs(ms) });
    const got: number[] = [];
    for (let i = 0; i <= 50; i++) got.push(await source.nextNonce('k1'));
    expect(got[0]).toBe(1_700_000_000_000);
    expect(got[50]).toBe(1_700_000_000_050);
    expect(source.throttled).toBe(0);
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_051); // had to wait 1 ms for the clock
    expect(source.throttled).toBe(1);
    expect(clock.nowMs()).toBe(1_700_000_000_001);

    const stuck = new RedisNonceSource({ redis, prefix, clock, maxLeadMs: 50, maxWaitMs: 20, sleep: async () => undefined });
    await expect(stuck.nextNonce('k1')).rejects.toBeInstanceOf(NotReadyError);
  });

  test('after a failover lost the latest nonces, the key is raised past every nonce this process sent', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const source = new RedisNonceSource({ redis, prefix, clock, maxLeadMs: 4000 });
    const sent = [await source.nextNonce('k1'), await source.nextNonce('k1'), await source.nextNonce('k1')];
    expect(sent).toEqual([1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_002]);
    const key = StoreKeys.forApiKey('k1', prefix).nonce();
    await redis.set(key, String(sent[0])); // the new primary had only the first
    expect(await source.raisePastIssued()).toBe(1);
    expect(await redis.get(key)).toBe(String(sent[2]));
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_003);
    expect(await source.raisePastIssued()).toBe(0); // nothing lost: left alone
  });

  test('a nonce asked for before any raise is still above every nonce this process sent: the loss is seen and raised past', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const source = new RedisNonceSource({ redis, prefix, clock, maxLeadMs: 4000 });
    for (let i = 0; i < 5; i++) await source.nextNonce('k1'); // ran 4 ms ahead of the clock
    await redis.set(StoreKeys.forApiKey('k1', prefix).nonce(), '1700000000001'); // the new primary's copy
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_005);
    expect(source.raisedAfterLoss).toBe(1);
  });

  test('uses the measured clock offset, and keys are per API key', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const source = new RedisNonceSource({ redis, prefix, clock });
    source.setClockOffsetMs(2_500.4);
    expect(await source.nextNonce('k1')).toBe(1_700_000_002_500);
    expect(await source.nextNonce('k2')).toBe(1_700_000_002_500);
    source.setClockOffsetMs(0); // the exchange's clock was re-measured: never go backwards
    expect(await source.nextNonce('k1')).toBe(1_700_000_002_501);
  });

  test('two sources on two connections sharing a key interleave without duplicates', async () => {
    const prefix = ctx.prefix();
    const a = new RedisNonceSource({ redis: await ctx.client(), prefix });
    const b = new RedisNonceSource({ redis: await ctx.client(), prefix });
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).nextNonce('shared')));
    expect(new Set(got).size).toBe(200);
  });

  test('fails fast with StoreUnavailableError when Redis is gone', async () => {
    const redis = await ctx.client();
    const source = new RedisNonceSource({ redis, prefix: ctx.prefix() });
    redis.disconnect();
    await expect(source.nextNonce('k1')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test('a poisoned nonce (30 years ahead) is found and repaired at start-up; a sane one is left alone', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const key = StoreKeys.forApiKey('k1', prefix).nonce();
    const poisoned = 2_650_000_000_000; // the year 2053
    await redis.set(key, String(poisoned), 'PX', 86_400_000);
    const source = new RedisNonceSource({ redis, prefix, clock });
    expect(await source.repairPoisoned('k1')).toEqual({ repaired: true, last: poisoned });
    expect(Number(await redis.get(key))).toBe(1_700_000_000_000);
    expect(await redis.pttl(key)).toBeGreaterThan(0);
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_001);
    // Up to the largest offset followed plus the lead is sane (another process 60 s ahead): kept.
    await redis.set(key, String(1_700_000_064_000), 'PX', 86_400_000);
    expect(await source.repairPoisoned('k1')).toEqual({ repaired: false, last: 1_700_000_064_000 });
    expect(Number(await redis.get(key))).toBe(1_700_000_064_000);
    expect(await source.repairPoisoned('absent')).toEqual({ repaired: false, last: 0 });
  });

  test('allocation never stores a nonce beyond the ceiling: a poisoned last met while running is replaced, not followed', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const key = StoreKeys.forApiKey('k1', prefix).nonce();
    await redis.set(key, String(2_650_000_000_000));
    const source = new RedisNonceSource({ redis, prefix, clock, maxWaitMs: 0 });
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_000);
    expect(source.repaired).toBe(1);
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_001);
    expect(Number(await redis.get(key))).toBe(1_700_000_000_001);
  });

  test('a far-future or far-past measured offset is refused by the source; the stored nonce stays near the local clock', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const clock = new ManualClock(1_700_000_000_000);
    const source = new RedisNonceSource({ redis, prefix, clock });
    expect(() => source.setClockOffsetMs(30 * 365 * 86_400_000)).toThrow(/beyond \+-60000 ms/);
    expect(() => source.setClockOffsetMs(-30 * 365 * 86_400_000)).toThrow(/beyond/);
    expect(await source.nextNonce('k1')).toBe(1_700_000_000_000);
    expect(Number(await redis.get(StoreKeys.forApiKey('k1', prefix).nonce()))).toBe(1_700_000_000_000);
  });
});

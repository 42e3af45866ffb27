import { Writable } from 'node:stream';
import type Redis from 'ioredis';
import { storeKeysFor } from '../../../src/app/account-store';
import { preparePaperNamespace } from '../../../src/app/paper-fresh-start';
import { parseConfig, type FrozenConfig } from '../../../src/config/load';
import { createLogger } from '../../../src/log/logger';
import { RedisDeploymentLog } from '../../../src/store/deployment-log';
import type { StoreKeys } from '../../../src/store/keys';
import { RedisTestContext } from './redis-test-context';

/**
 * The clearing of an earlier paper run's state (src/app/paper-fresh-start.ts, src/store/timeline-keys.ts)
 * against the real Redis: only this account's paper timeline keys go, in batches; the live namespace
 * beside it, another account, and what the operator decided (strategy versions, trading state) stay.
 */
const T0 = Date.UTC(2021, 8, 18);
const HOUR = 3_600_000;
const ORDERS = 1200; // more than one SCAN/UNLINK batch

const ctx = new RedisTestContext();
let redis: Redis;
afterAll(() => ctx.cleanup());
beforeAll(async () => { redis = await ctx.client(); });

const embedded = parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'churn' }] } }, {}, 'paper.yaml');
const standalone = parseConfig({ mode: 'paper', paper: { exchangeUrl: 'http://127.0.0.1:8080' }, strategies: { enabled: [{ name: 'churn' }] } }, {}, 'paper.yaml');
const live = parseConfig({
  mode: 'live', risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } }, killSwitch: { enabled: true },
  strategies: { enabled: [{ name: 'churn' }] },
}, { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' }, 'live.yaml');

/** An earlier run's state under `keys`: journal, leases (held by `leaseOwner` for `leaseTtlMs`), drift records, and the kept kinds. */
async function seed(keys: StoreKeys, opts: { leaseOwner?: string; leaseTtlMs?: number } = {}): Promise<void> {
  const p = redis.pipeline();
  for (let i = 0; i < ORDERS; i++) {
    const id = `tb-churn-${i}`;
    p.hset(keys.order(id), { clientOrderId: id, status: i < 3 ? 'open' : 'filled' }).rpush(keys.orderHistory(id), '{}').zadd(keys.allOrders(), i, id).zadd(keys.strategyOrders('churn'), i, id);
    if (i < 3) p.sadd(keys.liveOrders(), id);
  }
  p.hset(keys.liveCounts(), 'churn|BTC_USDT', 3);
  p.hset(keys.lease('churn', 'BTC_USDT'), { owner: opts.leaseOwner ?? 'gone-host:1:x', token: 7 }).pexpire(keys.lease('churn', 'BTC_USDT'), opts.leaseTtlMs ?? 10_000);
  p.set(keys.fence('churn', 'BTC_USDT'), 7).set(keys.nonce(), 123).hset(keys.bucket('private'), { tokens: 1, ts: 1 });
  p.hset(keys.strategyVersions(), 'churn', JSON.stringify({ version: 'abc', atMs: 1, by: 'promote' }));
  p.hset(keys.tradingState(), { state: 'halted', reason: 'operator', atMs: 1, seq: 1, epoch: 'e' });
  p.zadd(keys.driftCandles('BTC_USDT', '1m'), T0 / 1000, '{}').zadd(keys.driftDecisions(), T0 / 1000, '{}').zadd(keys.driftBalances(), T0, '{}');
  await p.exec();
  const log = new RedisDeploymentLog(redis, keys);
  await log.markRun({ runId: 'run1', event: 'start', marketMs: T0, atMs: Date.now() });
  await log.markRun({ runId: 'run1', event: 'stop', marketMs: T0 + 2 * HOUR, atMs: Date.now() });
}

async function keysOf(keys: StoreKeys): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', keys.pattern(), 'COUNT', 1000);
    cursor = next;
    out.push(...found);
  } while (cursor !== '0');
  return out.sort();
}

function run(config: FrozenConfig, keys: StoreKeys, marketNowMs = T0, dead: (owner: string) => boolean = (o) => o.startsWith('gone-host')) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'debug', destination: new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk)) as Record<string, unknown>); done(); } }) });
  const decided = preparePaperNamespace({ config, redis, keys, marketClock: { nowMs: () => marketNowMs }, log, isDeadOwner: dead });
  return { decided, lines };
}

test('embedded simulator: this account\'s paper timeline goes in batches, with one warn line saying what; the live namespace, another account and the kept kinds stay', async () => {
  const prefix = ctx.prefix();
  const paper = storeKeysFor('paper', 'tradebot-paper-account', prefix);
  const liveKeys = storeKeysFor('live', 'tradebot-paper-account', prefix);
  const otherAccount = storeKeysFor('paper', 'another-key', prefix);
  await seed(paper);
  await seed(liveKeys);
  await seed(otherAccount);
  const liveBefore = await keysOf(liveKeys);
  const otherBefore = await keysOf(otherAccount);

  const { decided, lines } = run(embedded, paper);
  expect(await decided).toEqual({ action: 'clear', why: 'embedded' });
  expect(await keysOf(paper)).toEqual([paper.bucket('private'), paper.strategyVersions(), paper.tradingState(), paper.fence('churn', 'BTC_USDT'), paper.nonce()].sort());
  expect(await keysOf(liveKeys)).toEqual(liveBefore);
  expect(await keysOf(otherAccount)).toEqual(otherBefore);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 'warn', orders: ORDERS, openOrders: 3, runs: 1, earlierFrom: new Date(T0).toISOString(), earlierTo: new Date(T0 + 2 * HOUR).toISOString(),
    // a record and a history per order; the all and strategy indexes, live set and counts; the lease; 3 drift ZSETs, the runs ZSET and the run hash
    keysCleared: ORDERS * 2 + 4 + 1 + 5,
  });
  expect(String(lines[0]!['msg'])).toBe(
    `paper: a new simulated market; the earlier paper run's state was cleared (${ORDERS} orders journaled (3 open), 1 run recorded, market time 2021-09-18T00:00:00.000Z to 2021-09-18T02:00:00.000Z); `
    + 'its drift records went with it: run `tradebot drift` over a paper run before restarting the daemon',
  );

  // A second start finds nothing earlier: no line.
  const again = run(embedded, paper);
  expect(await again.decided).toEqual({ action: 'nothing-earlier' });
  expect(again.lines).toEqual([]);
});

test('live mode never clears anything, not even its own namespace', async () => {
  const prefix = ctx.prefix();
  const liveKeys = storeKeysFor('live', 'live-key', prefix);
  await seed(liveKeys);
  const before = await keysOf(liveKeys);
  const { decided, lines } = run(live, liveKeys);
  expect(await decided).toEqual({ action: 'untouched', why: 'live' });
  expect(await keysOf(liveKeys)).toEqual(before);
  expect(lines).toEqual([]);
});

test('a lease held by a daemon that may still run: the namespace is shared, nothing cleared', async () => {
  const prefix = ctx.prefix();
  const paper = storeKeysFor('paper', 'tradebot-paper-account', prefix);
  await seed(paper, { leaseOwner: 'other-host:99:y' });
  const before = await keysOf(paper);
  const { decided, lines } = run(embedded, paper);
  expect(await decided).toEqual({ action: 'shared', holders: ['other-host:99:y'] });
  expect(await keysOf(paper)).toEqual(before);
  expect(lines).toEqual([expect.objectContaining({ level: 'warn', holders: ['other-host:99:y'] })]);
});

test('a standalone simulator: carried over (one info line) while its clock continues the earlier run, cleared once it went back', async () => {
  const prefix = ctx.prefix();
  const paper = storeKeysFor('paper', 'sim-key', prefix);
  await seed(paper);
  const before = await keysOf(paper);
  const carried = run(standalone, paper, T0 + 2 * HOUR + 60_000);
  expect(await carried.decided).toEqual({ action: 'carry', why: 'same-market' });
  expect(await keysOf(paper)).toEqual(before);
  expect(carried.lines).toEqual([expect.objectContaining({ level: 'info', orders: ORDERS, openOrders: 3, runs: 1 })]);
  expect(String(carried.lines[0]!['msg'])).toContain('its state is carried over (1200 orders journaled (3 open), 1 run recorded, market time 2021-09-18T00:00:00.000Z to 2021-09-18T02:00:00.000Z)');

  const restarted = run(standalone, paper, T0);
  expect(await restarted.decided).toEqual({ action: 'clear', why: 'clock-behind', lastMarketMs: T0 + 2 * HOUR });
  expect(String(restarted.lines[0]!['msg'])).toMatch(/^paper: the simulator's market clock \(2021-09-18T00:00:00.000Z\) is before the earlier run's last market time \(2021-09-18T02:00:00.000Z\): a new simulated market; the earlier paper run's state was cleared/);
  expect((await keysOf(paper)).length).toBe(5);
});

import { Decimal } from '../../../src/domain/decimal';
import { LIMIT_IDS, type LimitTable } from '../../../src/limiter/limits';
import { RedisTokenBucket } from '../../../src/limiter/redis-token-bucket';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { StoreKeys } from '../../../src/store/keys';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { startCountingProxy, type CountingProxy } from '../../crash/counting-proxy';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, replica, startSim, stopLimit, T0, type Replica } from './harness';
import { compareJournalWithSim } from './invariants';

jest.setTimeout(30_000);

// Small limits, the same at the exchange and in the shared bucket, so "at the limit" comes fast.
const SMALL: LimitTable = Object.fromEntries(LIMIT_IDS.map((id) => [id, { capacity: 20, windowMs: 1000 }])) as unknown as LimitTable;
const STRATEGIES = ['s1', 's2', 's3', 's4'];

const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let proxy: CountingProxy;
const replicas: Replica[] = [];

afterEach(async () => {
  for (const r of replicas) r.execution.reconciler.stop();
  replicas.length = 0;
  await proxy?.close();
  await sim?.close();
  await ctx.cleanup();
});

test('two replicas, one API key: each (strategy, market) traded by one only, no nonce refused, no 429 at the limit', async () => {
  sim = await startSim({ rateLimits: SMALL });
  proxy = await startCountingProxy(sim.url);
  const prefix = ctx.prefix();
  for (const owner of ['replica-a', 'replica-b']) {
    const redis = await ctx.client();
    // Separate connections, clients, buckets and nonce sources per replica; shared state only in Redis.
    const limiter = new RedisTokenBucket({ redis, keys: StoreKeys.forApiKey(API_KEY, prefix), limits: SMALL });
    const nonceSource = new RedisNonceSource({ redis, prefix });
    const client = httpClient(proxy.url, { limiter, nonceSource, timeoutMs: 3000 });
    replicas.push(await replica({ redis, prefix, client, owner, scopes: STRATEGIES.map((s) => [s, MARKET] as const), settings: { requestTimeoutMs: 3000 } }));
  }
  for (const r of replicas) await r.execution.reconciler.runOnce();
  const held = replicas.map((r) => r.keeper.heldScopes().map((l) => l.strategy).sort());
  expect([...held[0]!, ...held[1]!].sort()).toEqual(STRATEGIES); // every scope held by exactly one

  // Both replicas run every strategy's intents at once (as if both hosts evaluated the same candles).
  const intents = STRATEGIES.flatMap((s) => Array.from({ length: 10 }, (_, i) => stopLimit(s, T0 + i * 60, { activationPrice: new Decimal(105 + i), price: new Decimal(106 + i) })));
  const results = await Promise.all(replicas.map((r) => Promise.all(intents.map((i) => r.execution.executor.submit(i)))));

  const traded = replicas.map((r) => new Set(r.events.ofType('OrderSubmitted').map((e) => e.strategy)));
  for (const s of STRATEGIES) expect(Number(traded[0]!.has(s)) + Number(traded[1]!.has(s))).toBe(1);
  for (const [i, r] of replicas.entries()) {
    const denied = results[i]!.filter((x) => x.outcome === 'denied');
    expect(denied.every((x) => x.outcome === 'denied' && x.rule === 'lease')).toBe(true);
    expect(results[i]!.filter((x) => x.outcome === 'accepted')).toHaveLength(held[i]!.length * 10);
    expect(r.events.ofType('OrderAnswerLost')).toHaveLength(0);
  }
  expect(proxy.counts.status429).toBe(0); // neither a refused nonce nor the rate limit
  expect(proxy.counts.total).toBeGreaterThan(40);
  const records = await replicas[0]!.store.listAll(1000);
  expect(records).toHaveLength(40);
  const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
  expect([cmp.duplicates, cmp.unknownToJournal, cmp.mismatches, cmp.unsettled]).toEqual([[], [], [], []]);
});

import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, oco, replica, startSim, stopLimit, T0, type Replica } from './harness';

// redis.replicaAcks on a primary whose replica is missing: every record is written but never confirmed.
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;

beforeEach(async () => {
  sim = await startSim();
  r = await replica({
    redis: await ctx.client(), prefix: ctx.prefix(), client: httpClient(sim.url), owner: 'test-a',
    scopes: [['alpha', MARKET]], replicaAcks: { replicas: 1, timeoutMs: 50 },
  });
  await r.execution.reconciler.runOnce();
});

afterEach(async () => {
  r.execution.reconciler.stop();
  await sim.close();
  await ctx.cleanup();
});

test('a stop-limit whose record no replica confirmed is not sent, and its record says why', async () => {
  const result = await r.execution.executor.submit(stopLimit('alpha', T0));
  expect(result).toMatchObject({ outcome: 'denied', rule: 'journal_replication' });
  expect((result as { reason: string }).reason).toBe('journal record confirmed by 0 of 1 replicas within 50 ms: not sent');
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  const records = await r.store.listAll(10);
  expect(records.map((x) => [x.status, x.reason])).toEqual([['rejected', 'not sent: journal record confirmed by 0 of 1 replicas within 50 ms: not sent']]);
  expect(r.events.ofType('OrderSubmitted')).toHaveLength(0);
});

test('an OCO: neither leg is sent, both records are rejected', async () => {
  const result = await r.execution.executor.submit(oco('alpha', T0));
  expect(result).toMatchObject({ outcome: 'denied', rule: 'journal_replication' });
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
  expect((await r.store.listAll(10)).map((x) => x.status)).toEqual(['rejected', 'rejected']);
});

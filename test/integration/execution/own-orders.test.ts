import { Decimal } from '../../../src/domain/decimal';
import type { OwnOrderPolicy } from '../../../src/execution/reconciliation/own-orders';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, oco, replica, startSim, stopLimit, T0, type Replica } from './harness';

/**
 * Redis comes back empty (a failover to an empty replica, a restart without persistence): the
 * journal is gone but the orders are still at the exchange. The reconciler of the next process
 * recognises the orders this deployment minted by their client order ids and journals them again
 * under the strategy that placed them, so they are managed (fills, cancels, the strategy's open-order
 * view); a foreign order keeps the configured policy. The venue documents OCO legs WITHOUT a client
 * order id: such an OCO cannot be recognised by the reconciler; the strategy's replay of its intent
 * finds it by fingerprint before sending (Settler.lookBeforeFirstSend). A venue that echoes the id on
 * the legs (`ocoLegIds: 'echo'`) gets its OCOs adopted like stop-limits.
 */
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
const OWN = [{ name: 'alpha', markets: [MARKET] }, { name: 'beta', markets: [MARKET] }];

beforeEach(async () => { sim = await startSim(); });
afterEach(async () => {
  await sim.close();
  await ctx.cleanup();
});

async function placeThenLoseJournal(prefix: string): Promise<{ ids: string[] }> {
  const redis = await ctx.client();
  const first = await replica({ redis, prefix, client: httpClient(sim.url), owner: 'before', scopes: [['alpha', MARKET], ['beta', MARKET]], settings: { ownStrategies: OWN } });
  await first.execution.reconciler.runOnce();
  const ids: string[] = [];
  for (const intent of [stopLimit('alpha', T0), stopLimit('beta', T0), oco('alpha', T0 - 120)]) { // the OCO's candle closed before the venue's now, as every sent intent's has
    const r = await first.execution.executor.submit(intent);
    expect(r.outcome).toBe('accepted');
    if ('records' in r) ids.push(...r.records.map((x) => x.clientOrderId));
  }
  first.execution.reconciler.stop();
  // A foreign order on the same account: a person's, without a client order id.
  sim.engine.placeStopLimit(API_KEY, { market: MARKET, side: 'buy', amount: new Decimal('0.05'), activationPrice: new Decimal('120'), price: new Decimal('121') });
  // The journal, leases and counters are lost.
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  return { ids };
}

async function next(prefix: string, policy?: OwnOrderPolicy, startedAtMs?: number): Promise<Replica> {
  return replica({
    redis: await ctx.client(), prefix, client: httpClient(sim.url), owner: 'after', scopes: [['alpha', MARKET], ['beta', MARKET]],
    settings: { ownStrategies: OWN, ...(policy === undefined ? {} : { ownOrderPolicy: policy }), ...(startedAtMs === undefined ? {} : { startedAtMs }) },
  });
}

test('a venue echoing ids on OCO legs: own stop-limits and OCO legs are adopted under their strategies; the foreign order is only reported', async () => {
  await sim.close();
  sim = await startSim({ ocoLegIds: 'echo' });
  const prefix = ctx.prefix();
  const { ids } = await placeThenLoseJournal(prefix);
  expect(ids).toHaveLength(4); // two stop-limits, two OCO legs
  const r = await next(prefix);
  const summary = await r.execution.reconciler.runOnce();
  expect(summary.discrepancies).toMatchObject({ adopted: 3, unknown_at_exchange: 1 });

  const journal = new Map((await r.store.listLive()).map((x) => [x.clientOrderId, x]));
  expect([...journal.keys()].sort()).toEqual([...ids].sort());
  expect(journal.get(ids[0]!)).toMatchObject({ strategy: 'alpha', kind: 'stop_limit', status: 'open', candleTime: T0, amount: '0.1', price: '105.5' });
  expect(journal.get(ids[1]!)).toMatchObject({ strategy: 'beta', kind: 'stop_limit', status: 'open' });
  const [sl, tp] = [journal.get(ids[2]!)!, journal.get(ids[3]!)!];
  expect(sl).toMatchObject({ strategy: 'alpha', kind: 'oco_sl', candleTime: T0 - 120, activationPrice: '95', stopLimitPrice: '94.5', price: '110' });
  expect(tp).toMatchObject({ strategy: 'alpha', kind: 'oco_tp' });
  expect(sl.ocoId).toBeDefined();
  expect(tp.ocoId).toBe(sl.ocoId);
  expect(r.events.ofType('OrderAdopted').map((e) => e.strategy).sort()).toEqual(['alpha', 'alpha', 'beta']);
  expect(r.events.ofType('UnknownOrderFound')).toEqual([expect.objectContaining({ clientOrderId: undefined, action: 'ignored' })]);

  // Managed again: the strategy's cancel goes through the journal to the exchange.
  const canceled = await r.execution.executor.submit({ strategy: 'beta', interval: '1m', candleTime: T0 + 120, intent: { kind: 'cancel', market: MARKET, clientOrderId: ids[1]! } });
  expect(canceled.outcome).toBe('canceled');
  expect(sim.engine.activeOrders(API_KEY).some((o) => o.clientOrderId === ids[1])).toBe(false);

  // The next pass finds nothing new.
  expect((await r.execution.reconciler.runOnce()).discrepancies).toMatchObject({ adopted: 0, unknown_at_exchange: 1 });
  r.execution.reconciler.stop();
});

test('OCO legs as documented (no id): the reconciler adopts the stop-limits and reports the OCO; the strategy\'s replay journals the OCO by fingerprint, placing nothing', async () => {
  const prefix = ctx.prefix();
  const { ids } = await placeThenLoseJournal(prefix);
  const r = await next(prefix, undefined, (T0 + 600) * 1000);
  expect((await r.execution.reconciler.runOnce()).discrepancies).toMatchObject({ adopted: 2, unknown_at_exchange: 2 });
  expect(r.events.ofType('UnknownOrderFound').map((e) => e.action)).toEqual(['ignored', 'ignored']); // the OCO and the foreign order
  const replay = await r.execution.executor.submit(oco('alpha', T0 - 120));
  expect(replay.outcome).toBe('existing');
  expect(sim.engine.activeOcos(API_KEY)).toHaveLength(1);
  const [sl, tp] = [await r.store.get(ids[2]!), await r.store.get(ids[3]!)];
  expect([sl?.status, tp?.status, sl?.ocoId, tp?.ocoId]).toEqual(['open', 'open', sim.engine.activeOcos(API_KEY)[0]?.id, sim.engine.activeOcos(API_KEY)[0]?.id]);
  expect((await r.execution.reconciler.runOnce()).discrepancies).toMatchObject({ unknown_at_exchange: 1 }); // only the foreign one now
  r.execution.reconciler.stop();
});

test('ownOrderPolicy ignore: own orders are reported like foreign ones and not journaled', async () => {
  const prefix = ctx.prefix();
  await placeThenLoseJournal(prefix);
  const r = await next(prefix, 'ignore');
  expect((await r.execution.reconciler.runOnce()).discrepancies).toMatchObject({ adopted: 0, unknown_at_exchange: 4 });
  expect(await r.store.listLive()).toEqual([]);
  r.execution.reconciler.stop();
});

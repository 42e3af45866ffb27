import { deriveClientOrderId } from '../../../src/core/client-order-id';
import { Decimal } from '../../../src/domain/decimal';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, ocoOfBatch, replica, sleep, startSim, stopLimit, T0, type Replica } from './harness';
import { compareJournalWithSim } from './invariants';

const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;

beforeEach(async () => {
  sim = await startSim();
  r = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: httpClient(sim.url, { timeoutMs: 800 }), owner: 'lost-a', scopes: [['alpha', MARKET], ['beta', MARKET]] });
  await r.execution.reconciler.runOnce();
});

afterEach(async () => {
  r.execution.reconciler.stop();
  await sim.close();
  await ctx.cleanup();
});

test('answers lost, timeouts and 5xx on order creation: zero duplicates, zero lost, every outcome settled by asking', async () => {
  // Faults on the two order-creating endpoints only; the look-ups that settle them stay healthy.
  sim.faults.configure({ seed: 7, lostAnswerRate: 0.3, timeoutRate: 0.15, error5xxRate: 0.15, timeoutHoldMs: 1200, endpoints: ['stopLimit', 'collateralOco'] });
  const intents = [
    ...Array.from({ length: 24 }, (_, i) => stopLimit('alpha', T0 + i * 60, { price: new Decimal(105.5 + i), activationPrice: new Decimal(105 + i) })),
    ...Array.from({ length: 6 }, (_, i) => ocoOfBatch('beta', T0, i)),
  ];
  const first = await Promise.all(intents.map((i) => r.execution.executor.submit(i)));
  const outcomes = first.map((x) => x.outcome);
  expect(outcomes).toContain('unknown'); // the faults did hit
  const injected = sim.faults.injected();
  expect(injected.lostAnswer).toBeGreaterThan(0);

  // The strategy host re-emits everything (as after a restart): nothing may be placed twice.
  const replay = await Promise.all(intents.map((i) => r.execution.executor.submit(i)));
  expect(replay.every((x) => x.outcome === 'existing')).toBe(true);

  sim.faults.reset();
  await sleep(1200 + 500); // the in-flight window (request timeout + margin) has passed
  for (let i = 0; i < 20; i++) {
    const counts = await r.execution.settler.settleAll();
    if (counts.waiting === 0) break;
    await sleep(200);
  }
  await r.execution.reconciler.runOnce();

  const records = await r.store.listAll(1000);
  expect(records).toHaveLength(24 + 12);
  const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
  expect(cmp.duplicates).toEqual([]);
  expect(cmp.unknownToJournal).toEqual([]);
  expect(cmp.unsettled).toEqual([]);
  expect(cmp.mismatches).toEqual([]);
  // lost answers were processed by the venue: those orders exist and the journal adopted their ids
  expect(cmp.placed).toBeGreaterThan(0);
  expect(r.events.ofType('OrderSettled').length).toBeGreaterThan(0);
}, 20_000);

test('with partial fills: lost answers on orders and cancels, orders filling over several candles, then cancelled; the journal ends exactly as the exchange', async () => {
  // The harness candles trade 2 BTC a minute: the default 10 % share lets 0.2 BTC a minute fill, shared by all
  // orders, so these 0.5 BTC orders fill over several candles.
  sim.faults.configure({ seed: 11, lostAnswerRate: 0.3, timeoutRate: 0.1, error5xxRate: 0.1, timeoutHoldMs: 1200, endpoints: ['stopLimit', 'collateralOco', 'cancelOrder', 'cancelOco'] });
  const big = new Decimal('0.5');
  const stops = Array.from({ length: 6 }, (_, i) => stopLimit('alpha', T0 + i * 60, { amount: big, price: new Decimal('105.5'), activationPrice: new Decimal(105 + i / 10) }));
  const ocos = Array.from({ length: 2 }, (_, i) => ocoOfBatch('beta', T0, i, { amount: big }));
  await Promise.all([...stops, ...ocos].map((i) => r.execution.executor.submit(i)));

  // Three minutes: up through the stops (triggered, the first fills 0.2), then down (their rest fills at the opens).
  for (const minute of [1, 2, 3]) {
    sim.advanceTo(T0 + minute * 60 + 60);
    await settle();
  }
  const partly = sim.engine.activeOrders(API_KEY).filter((o) => !o.dealStock.isZero());
  expect(partly.length).toBeGreaterThan(0);
  // Cancel every stop-limit still open (part-filled or not), answers lost now and then; replay the cancels.
  const cancels = stops.map((s) => ({ ...s, intent: { kind: 'cancel' as const, market: MARKET, clientOrderId: sentId(s) } }));
  // Until every stop-limit is final: a cancel whose answer was lost is settled, then replayed ('existing').
  for (let round = 0; round < 10; round++) {
    const results = await Promise.all(cancels.map((c) => r.execution.executor.submit(c).catch(() => undefined)));
    if (results.every((x) => x?.outcome === 'existing')) break;
    await settle();
  }
  sim.faults.reset();
  for (const minute of [4, 5]) {
    sim.advanceTo(T0 + minute * 60 + 60);
    await settle();
  }

  const records = await r.store.listAll(1000);
  const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
  expect(cmp.duplicates).toEqual([]);
  expect(cmp.unknownToJournal).toEqual([]);
  expect(cmp.unsettled).toEqual([]);
  expect(cmp.mismatches).toEqual([]);
  expect(records.filter((rec) => rec.kind === 'stop_limit' && !['filled', 'canceled', 'rejected'].includes(rec.status))).toEqual([]);
  // The journal followed orders through partial fills (the comparison above holds amounts, money and fees).
  expect(records.some((rec) => rec.history.some((h) => h.event === 'fill_partially'))).toBe(true);
  expect(sim.engine.deals(API_KEY).length).toBeGreaterThan(records.filter((rec) => rec.filledAmount !== '0').length); // several deals per order
}, 30_000);

/** The client order id an intent was sent with (as journaled). */
function sentId(stamped: ReturnType<typeof stopLimit>): string {
  return deriveClientOrderId({ strategy: stamped.strategy, market: MARKET, candleTime: stamped.candleTime, tag: undefined, leg: 'o' });
}

/** Waits out the in-flight window (keeping the leases), then settles and reconciles until nothing is waiting. */
async function settle(): Promise<void> {
  await sleep(800 + 500);
  await r.keeper.tick(); // the harness lease lives 5 s: this test runs longer
  for (let i = 0; i < 20; i++) {
    const counts = await r.execution.settler.settleAll();
    if (counts.waiting === 0) break;
    await sleep(200);
  }
  await r.execution.reconciler.runOnce();
}

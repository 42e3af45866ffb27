import { Decimal } from '../../../src/domain/decimal';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, oco, replica, sleep, startSim, stopLimit, T0, type Replica } from './harness';
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
    ...Array.from({ length: 6 }, (_, i) => oco('beta', T0 + i * 60)),
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
});

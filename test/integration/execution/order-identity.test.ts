import { Decimal } from '../../../src/domain/decimal';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, oco, replica, sleep, startSim, stopLimit, T0, type Replica } from './harness';
import { compareJournalWithSim } from './invariants';

/**
 * Order identity as the venue documents it (whitebit-exchange/docs, openapi/private/http-trade-v4.yaml):
 * OCO legs answer `"clientOrderId": ""` whatever the request sent, and a client order id is unique only
 * among OPEN orders (once an order finished, the venue accepts the id again). The simulator answers so
 * by default; every test here runs the daemon's execution against it over HTTP, with a real Redis.
 */
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
const replicas: Replica[] = [];

async function newReplica(owner: string, opts: { prefix?: string; startedAtMs?: number; unknownOrderPolicy?: 'ignore' | 'cancel' } = {}): Promise<Replica> {
  const r = await replica({
    redis: await ctx.client(), prefix: opts.prefix ?? ctx.prefix(), client: httpClient(sim.url, { timeoutMs: 800 }), owner,
    scopes: [['alpha', MARKET], ['beta', MARKET]],
    settings: {
      ...(opts.startedAtMs === undefined ? {} : { startedAtMs: opts.startedAtMs }),
      ...(opts.unknownOrderPolicy === undefined ? {} : { unknownOrderPolicy: opts.unknownOrderPolicy }),
    },
  });
  await r.execution.reconciler.runOnce();
  replicas.push(r);
  return r;
}

/** Settles until nothing is waiting (the in-flight window of the lost answers has passed). */
async function settleAll(r: Replica): Promise<void> {
  await sleep(800 + 500 + 100);
  for (let i = 0; i < 20; i++) {
    const counts = await r.execution.settler.settleAll();
    if (counts.waiting === 0) return;
    await sleep(200);
  }
}

afterEach(async () => {
  for (const r of replicas.splice(0)) r.execution.reconciler.stop();
  await sim?.close();
  await ctx.cleanup();
});

describe('OCO legs without our client order id (the documented answer)', () => {
  beforeEach(async () => {
    sim = await startSim();
  });

  test('the echo guard accepts the documented OCO answer: journaled by its OCO and leg order ids, no halt', async () => {
    const r = await newReplica('ids', { unknownOrderPolicy: 'cancel' });
    const result = await r.execution.executor.submit(oco('beta', T0));
    expect(result.outcome).toBe('accepted');
    expect(r.events.ofType('ClientOrderIdIgnored')).toEqual([]);
    const [venue] = sim.engine.activeOcos(API_KEY);
    expect([venue?.stopLoss.clientOrderId, venue?.takeProfit.clientOrderId]).toEqual(['', '']);
    const records = 'records' in result ? result.records : [];
    expect(records.map((x) => [x.kind, x.status, x.ocoId, x.orderId])).toEqual([
      ['oco_sl', 'open', venue?.id, venue?.stopLoss.id],
      ['oco_tp', 'open', venue?.id, venue?.takeProfit.id],
    ]);
    // The reconciler knows it by its ids: not an unknown order, and the cancel policy leaves it alone.
    const summary = await r.execution.reconciler.runOnce();
    expect(summary.discrepancies.unknown_at_exchange).toBe(0);
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(1);
  });

  test('a lost OCO answer is settled by fingerprint: found once, adopted with its ids, no orphan', async () => {
    const r = await newReplica('lost', { unknownOrderPolicy: 'cancel' });
    sim.faults.configure({ seed: 3, lostAnswerRate: 1, endpoints: ['collateralOco'] });
    const result = await r.execution.executor.submit(oco('beta', T0));
    expect(result.outcome).toBe('unknown');
    sim.faults.reset();
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(1); // the venue created it
    await settleAll(r);
    await r.execution.reconciler.runOnce(); // and the cancel policy leaves it alone: it is ours
    const records = await r.store.listAll(100);
    const [venue] = sim.engine.activeOcos(API_KEY);
    expect(records.map((x) => [x.kind, x.status, x.ocoId])).toEqual(expect.arrayContaining([
      ['oco_sl', 'open', venue?.id], ['oco_tp', 'open', venue?.id],
    ]));
    const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
    expect([cmp.duplicates, cmp.unknownToJournal, cmp.unsettled, cmp.mismatches]).toEqual([[], [], [], []]);
    // The strategy's replay of the same intent places nothing new.
    expect((await r.execution.executor.submit(oco('beta', T0))).outcome).toBe('existing');
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(1);
  });

  test('a lost OCO answer whose fingerprint matches two venue OCOs is never guessed: the record stays unknown and identity is reported ambiguous', async () => {
    const r = await newReplica('twins');
    // Someone placed the same OCO by hand just before (same market, side, amount and prices).
    const intent = oco('beta', T0);
    const twin = intent.intent.kind === 'oco' ? intent.intent : undefined;
    sim.engine.placeOco(API_KEY, {
      market: MARKET, side: twin!.side, amount: twin!.amount, price: twin!.price, activationPrice: twin!.activationPrice, stopLimitPrice: twin!.stopLimitPrice,
    });
    sim.faults.configure({ seed: 3, lostAnswerRate: 1, endpoints: ['collateralOco'] });
    expect((await r.execution.executor.submit(intent)).outcome).toBe('unknown');
    sim.faults.reset();
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(2);
    await settleAll(r);
    const ambiguous = r.events.ofType('OrderIdentityAmbiguous');
    expect(ambiguous.length).toBeGreaterThan(0);
    expect(ambiguous[0]?.reason).toMatch(/matches 2 order\(s\) at the venue .*OCO \d+, OCO \d+/);
    const records = await r.store.listAll(100);
    expect(records.every((x) => x.status === 'unknown')).toBe(true); // not declared "never created"
  });
});

describe('a client order id reused once its order finished (the venue accepts it)', () => {
  beforeEach(async () => {
    sim = await startSim();
  });

  /** Places a stop-limit that fills at once (activation below the last price, limit above it), journaled by `r`. */
  async function finishedStopLimit(r: Replica): Promise<void> {
    const filled = await r.execution.executor.submit(stopLimit('alpha', T0, { activationPrice: new Decimal('99'), price: new Decimal('101') }));
    expect(filled.outcome).toBe('accepted');
    sim.advanceBy(120);
    await r.execution.reconciler.runOnce();
    expect(sim.engine.orderHistory(API_KEY).filter((o) => o.clientOrderId !== '')).toHaveLength(1);
  }

  test('the venue itself accepts the id of a finished order again (what every path below must not rely on)', async () => {
    const r = await newReplica('venue-rule');
    await finishedStopLimit(r);
    const id = sim.engine.orderHistory(API_KEY)[0]!.clientOrderId;
    sim.engine.placeStopLimit(API_KEY, { market: MARKET, side: 'buy', amount: new Decimal('0.1'), price: new Decimal('200'), activationPrice: new Decimal('199'), clientOrderId: id });
    expect([...sim.engine.activeOrders(API_KEY), ...sim.engine.orderHistory(API_KEY)].filter((o) => o.clientOrderId === id)).toHaveLength(2);
  });

  test('journal intact: the replayed intent of a finished order is "existing", nothing is sent', async () => {
    const r = await newReplica('intact');
    await finishedStopLimit(r);
    const replay = await r.execution.executor.submit(stopLimit('alpha', T0, { activationPrice: new Decimal('99'), price: new Decimal('101') }));
    expect(replay.outcome).toBe('existing');
    expect(sim.engine.orderHistory(API_KEY)).toHaveLength(1);
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  });

  test('journal lost (empty Redis), candle closed before start: the venue is asked first; the finished order is journaled, not placed twice', async () => {
    const before = await newReplica('before');
    await finishedStopLimit(before);
    // A new process on an EMPTY journal (another prefix) replays the candle that closed before it started.
    const startedAtMs = (T0 + 600) * 1000;
    const after = await newReplica('after', { prefix: ctx.prefix(), startedAtMs });
    const replay = await after.execution.executor.submit(stopLimit('alpha', T0, { activationPrice: new Decimal('99'), price: new Decimal('101') }));
    expect(replay.outcome).toBe('existing');
    expect(sim.engine.orderHistory(API_KEY)).toHaveLength(1);
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
    const [record] = await after.store.listAll(10);
    expect([record?.status, record?.orderId]).toEqual(['filled', sim.engine.orderHistory(API_KEY)[0]?.id]);
    // Without the look-before-send (no start time), the same replay WOULD place a second order:
    const unguarded = await newReplica('unguarded', { prefix: ctx.prefix() });
    expect((await unguarded.execution.executor.submit(stopLimit('alpha', T0, { activationPrice: new Decimal('99'), price: new Decimal('101') }))).outcome).toBe('accepted');
    expect(sim.engine.orderHistory(API_KEY).length + sim.engine.activeOrders(API_KEY).length).toBe(2);
  });

  test('journal lost, an OCO that finished before the restart: found by fingerprint in history, not placed twice', async () => {
    const before = await newReplica('oco-before');
    expect((await before.execution.executor.submit(oco('beta', T0))).outcome).toBe('accepted');
    await before.execution.executor.submit({ strategy: 'beta', interval: '1m', candleTime: T0 + 60, intent: { kind: 'cancel', market: MARKET, clientOrderId: (await before.store.listAll(10))[0]!.clientOrderId } });
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
    const after = await newReplica('oco-after', { prefix: ctx.prefix(), startedAtMs: (T0 + 600) * 1000 });
    const replay = await after.execution.executor.submit(oco('beta', T0));
    expect(replay.outcome).toBe('existing');
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
    expect(sim.engine.orderHistory(API_KEY)).toHaveLength(2); // the two legs of the one OCO
    expect((await after.store.listAll(10)).map((x) => x.status).sort()).toEqual(['canceled', 'canceled']);
  });

  test('a pending record found at start-up whose order finished at the venue is journaled from it, not resent', async () => {
    const before = await newReplica('pending-before');
    await finishedStopLimit(before);
    const after = await newReplica('pending-after', { prefix: ctx.prefix() });
    // A two-step writer journaled the intent and died before `send`; the venue has the id already.
    const [venueOrder] = sim.engine.orderHistory(API_KEY);
    await after.store.recordIntent({
      clientOrderId: venueOrder!.clientOrderId, strategy: 'alpha', market: MARKET, side: 'buy', kind: 'stop_limit', amount: '0.1', price: '101',
      activationPrice: '99', candleTime: T0, candleCloseTime: T0 + 60,
    });
    const { resent } = await after.execution.settler.settlePending({ resendWithinMs: 60_000, resend: (rec) => after.execution.executor.resendPending(rec) });
    expect(resent).toBe(1);
    expect(sim.engine.orderHistory(API_KEY)).toHaveLength(1);
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
    expect((await after.store.get(venueOrder!.clientOrderId))?.status).toBe('filled');
  });
});

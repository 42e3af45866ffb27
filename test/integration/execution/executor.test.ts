import { Decimal } from '../../../src/domain/decimal';
import { NotReadyError } from '../../../src/domain/errors';
import type { OcoIntent } from '../../../src/domain/intent';
import { OpenOrderBook } from '../../../src/execution/kernel/open-order-book';
import type { PreTradeRisk } from '../../../src/execution/orders/risk-port';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, httpClient, MARKET, oco, replica, startSim, stopLimit, T0, until, type Replica } from './harness';

const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;

beforeEach(async () => {
  sim = await startSim();
  r = await replica({
    redis: await ctx.client(), prefix: ctx.prefix(), client: httpClient(sim.url), owner: 'test-a',
    scopes: [['alpha', MARKET], ['beta', MARKET]],
  });
});

afterEach(async () => {
  r.execution.reconciler.stop();
  await sim.close();
  await ctx.cleanup();
});

test('nothing is submitted before the first reconciliation', async () => {
  await expect(r.execution.executor.submit(stopLimit('alpha', T0))).rejects.toBeInstanceOf(NotReadyError);
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(await r.store.listAll(10)).toHaveLength(0);
  await r.execution.reconciler.runOnce();
  expect(r.execution.readiness.check()).toEqual({ ok: true });
});

test('stop-limit: journaled, accepted, then filled on the simulator; the reconciler brings the fill to the journal', async () => {
  await r.execution.reconciler.runOnce();
  const result = await r.execution.executor.submit(stopLimit('alpha', T0, { amount: new Decimal('0.1234567'), price: new Decimal('105.559') }));
  expect(result.outcome).toBe('accepted');
  const record = (result as { records: readonly { clientOrderId: string; status: string; amount: string; price: string; orderId?: number }[] }).records[0]!;
  expect(record).toMatchObject({ status: 'open', amount: '0.123456', price: '105.55' }); // amount down, buy price down
  const onSim = sim.engine.activeOrders(API_KEY);
  expect(onSim).toHaveLength(1);
  expect(onSim[0]!.clientOrderId).toBe(record.clientOrderId);
  expect(onSim[0]!.id).toBe(record.orderId);
  expect(r.events.ofType('OrderSubmitted')).toHaveLength(1);
  expect(r.events.ofType('OrderAccepted')).toHaveLength(1);

  sim.advanceTo(T0 + 120); // the second candle reaches 106: triggered and filled
  const summary = await r.execution.reconciler.runOnce();
  expect(summary.discrepancies.status).toBe(1);
  expect(await r.store.get(record.clientOrderId)).toMatchObject({ status: 'filled', filledAmount: '0.123456' });
  expect(r.events.ofType('OrderFilled')).toHaveLength(1);
});

test('replaying the same intent sends nothing new', async () => {
  await r.execution.reconciler.runOnce();
  await r.execution.executor.submit(stopLimit('alpha', T0));
  const again = await r.execution.executor.submit(stopLimit('alpha', T0));
  expect(again.outcome).toBe('existing');
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(1);
});

test('OCO: both legs journaled under one exchange id; the stop leg fills, the take-profit leg is canceled', async () => {
  await r.execution.reconciler.runOnce();
  const result = await r.execution.executor.submit(oco('beta', T0));
  expect(result.outcome).toBe('accepted');
  const legs = (result as { records: readonly { clientOrderId: string; kind: string; status: string; ocoId?: number }[] }).records;
  expect(legs.map((l) => [l.kind, l.status])).toEqual([['oco_sl', 'open'], ['oco_tp', 'open']]);
  const ocos = sim.engine.activeOcos(API_KEY);
  expect(ocos).toHaveLength(1);
  expect(ocos[0]!.clientOrderId).toBe(legs[0]!.clientOrderId);
  expect(legs.every((l) => l.ocoId === ocos[0]!.id)).toBe(true);

  sim.advanceTo(T0 + 240); // down to 90: the stop (95) fires and fills at 94.5
  await r.execution.reconciler.runOnce();
  expect((await r.store.get(legs[0]!.clientOrderId))?.status).toBe('filled');
  expect((await r.store.get(legs[1]!.clientOrderId))?.status).toBe('canceled');
});

test('partial fills: an OCO take-profit executing in parts cancels the stop-loss; the book shows its rest under the OCO id; a cancel ends it part-filled', async () => {
  await r.execution.reconciler.runOnce();
  // Sell 0.5 with the take-profit at 105: the next candle rises to 106 but trades 2 BTC, so 10 % = 0.2 fills.
  const pair = await r.execution.executor.submit({ ...oco('beta', T0), intent: { ...(oco('beta', T0).intent as OcoIntent), amount: new Decimal('0.5'), price: new Decimal('105') } });
  const [slId, tpId] = (pair as { records: readonly { clientOrderId: string }[] }).records.map((x) => x.clientOrderId) as [string, string];
  sim.advanceTo(T0 + 120);
  await r.execution.reconciler.runOnce();
  expect(await r.store.get(slId)).toMatchObject({ status: 'canceled', filledAmount: '0' });
  expect(await r.store.get(tpId)).toMatchObject({ status: 'partially_filled', filledAmount: '0.2', filledMoney: '21', fee: '0.021' });
  const book = new OpenOrderBook(r.store);
  await book.refresh();
  expect(book.of('beta', MARKET).map((v) => [v.clientOrderId, v.kind, v.amount.toString()])).toEqual([[slId, 'oco', '0.3']]);

  const canceled = await r.execution.executor.submit({ strategy: 'beta', interval: '1m', candleTime: T0 + 60, intent: { kind: 'cancel', market: MARKET, clientOrderId: slId } });
  expect(canceled.outcome).toBe('canceled');
  expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
  expect(await r.store.get(tpId)).toMatchObject({ status: 'canceled', filledAmount: '0.2' });
  const tp = sim.engine.orderHistory(API_KEY).find((o) => o.type === 'margin limit')!;
  expect([tp.status, tp.dealStock.toString(), tp.left.toString()]).toEqual(['CANCELED', '0.2', '0.3']);
  await book.refresh();
  expect(book.of('beta', MARKET)).toEqual([]);
});

test('partly filled, then cancelled, the cancel answer lost: settled from the order history (no `left` there) as exactly that, not as a fill', async () => {
  await r.execution.reconciler.runOnce();
  const placed = await r.execution.executor.submit(stopLimit('alpha', T0, { amount: new Decimal('0.5') }));
  const id = (placed as { records: readonly { clientOrderId: string }[] }).records[0]!.clientOrderId;
  sim.advanceTo(T0 + 120); // triggered at 105; 2 BTC traded, so 0.2 fills
  await r.execution.reconciler.runOnce();
  expect(await r.store.get(id)).toMatchObject({ status: 'partially_filled', filledAmount: '0.2', filledMoney: '21', fee: '0.021' });

  sim.faults.enqueue('lostAnswer', { endpoint: 'cancelOrder' });
  const cancel = await r.execution.executor.submit({ strategy: 'alpha', interval: '1m', candleTime: T0 + 60, intent: { kind: 'cancel', market: MARKET, clientOrderId: id } });
  expect(cancel.outcome).toBe('unknown');
  expect((await r.store.get(id))?.status).toBe('cancel_pending');
  await until(async () => (await r.execution.settler.settle((await r.store.get(id))!)) !== 'waiting');
  const history = await httpClient(sim.url).fetchOrderHistory({ market: MARKET });
  expect([history[0]!.status, history[0]!.dealStock.toString(), history[0]!.amount.toString()]).toEqual(['CANCELED', '0.2', '0.5']);
  expect(await r.store.get(id)).toMatchObject({ status: 'canceled', filledAmount: '0.2', filledMoney: '21', fee: '0.021' });
  expect(r.events.ofType('OrderCanceled').map((e) => e.filledAmount)).toEqual(['0.2']);
  expect(r.events.ofType('OrderFilled')).toEqual([]);
});

test('cancel: stop-limit and OCO are canceled at the exchange and in the journal', async () => {
  await r.execution.reconciler.runOnce();
  const sl = await r.execution.executor.submit(stopLimit('alpha', T0));
  const pair = await r.execution.executor.submit(oco('beta', T0));
  const slId = (sl as { records: readonly { clientOrderId: string }[] }).records[0]!.clientOrderId;
  const tpId = (pair as { records: readonly { clientOrderId: string }[] }).records[1]!.clientOrderId;

  const c1 = await r.execution.executor.submit({ strategy: 'alpha', interval: '1m', candleTime: T0 + 60, intent: { kind: 'cancel', market: MARKET, clientOrderId: slId } });
  const c2 = await r.execution.executor.submit({ strategy: 'beta', interval: '1m', candleTime: T0 + 60, intent: { kind: 'cancel', market: MARKET, clientOrderId: tpId } });
  expect([c1.outcome, c2.outcome]).toEqual(['canceled', 'canceled']);
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
  const statuses = (await r.store.listAll(10)).map((x) => x.status);
  expect(statuses.sort()).toEqual(['canceled', 'canceled', 'canceled']);
  // another strategy cannot cancel it
  const denied = await r.execution.executor.submit({ strategy: 'beta', interval: '1m', candleTime: T0, intent: { kind: 'cancel', market: MARKET, clientOrderId: slId } });
  expect(denied).toMatchObject({ outcome: 'denied', rule: 'cancel_unknown' });
});

test('risk denial, size limits and a missing lease send nothing', async () => {
  const denyAll: PreTradeRisk = { check: () => ({ ok: false, rule: 'halted', reason: 'trading halted' }) };
  const redis = await ctx.client();
  const denying = await replica({ redis, prefix: ctx.prefix(), client: httpClient(sim.url), owner: 'test-b', scopes: [['alpha', MARKET]], settings: { risk: denyAll } });
  await denying.execution.reconciler.runOnce();
  expect(await denying.execution.executor.submit(stopLimit('alpha', T0))).toMatchObject({ outcome: 'denied', rule: 'halted' });

  await r.execution.reconciler.runOnce();
  expect(await r.execution.executor.submit(stopLimit('alpha', T0, { amount: new Decimal('0.00001') }))).toMatchObject({ outcome: 'denied', rule: 'min_amount' });
  expect(await r.execution.executor.submit(stopLimit('alpha', T0, { amount: new Decimal('0.01') }))).toMatchObject({ outcome: 'denied', rule: 'min_total' });
  expect(await r.execution.executor.submit(stopLimit('gamma', T0))).toMatchObject({ outcome: 'denied', rule: 'lease' });
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(await r.store.listAll(10)).toHaveLength(0);
  expect(r.events.ofType('OrderDenied').map((e) => e.rule)).toEqual(['min_amount', 'min_total', 'lease']);
});

test('a pause applied while the order is being journaled: the order is not sent, its record is rejected (the paper-daemon "one more order after pause" flake)', async () => {
  // The state flips between the first check and the send, as when `tradebot pause` lands while
  // recordSubmit awaits Redis: the recheck right before sending refuses it.
  let halted = false;
  const pausing: PreTradeRisk = {
    check: () => { halted = true; return { ok: true }; },
    recheck: () => (halted ? { ok: false, rule: 'trading_state', reason: 'trading is halted (operator)' } : { ok: true }),
  };
  const late = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: httpClient(sim.url), owner: 'test-c', scopes: [['alpha', MARKET]], settings: { risk: pausing } });
  await late.execution.reconciler.runOnce();
  expect(await late.execution.executor.submit(stopLimit('alpha', T0))).toMatchObject({ outcome: 'denied', rule: 'trading_state' });
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  const [record] = await late.store.listAll(10);
  expect(record).toMatchObject({ status: 'rejected', reason: expect.stringContaining('not sent: trading is halted') });
  expect(late.events.ofType('OrderSubmitted')).toEqual([]);
});

test('a rejection by the exchange is journaled as rejected', async () => {
  await r.execution.reconciler.runOnce();
  // activation price equal to the last price (100): the venue refuses it
  const result = await r.execution.executor.submit(stopLimit('alpha', T0, { activationPrice: new Decimal('100'), price: new Decimal('100.5') }));
  expect(result.outcome).toBe('rejected');
  expect((await r.store.listAll(1))[0]?.status).toBe('rejected');
  expect(r.events.ofType('OrderRejected')).toHaveLength(1);
});

test('drain: refuses new work and waits for submissions already sent', async () => {
  await r.execution.reconciler.runOnce();
  sim.faults.configure({ latencyMs: 300, endpoints: ['stopLimit'] });
  const running = r.execution.executor.submit(stopLimit('alpha', T0));
  await until(() => r.events.ofType('OrderSubmitted').length === 1); // journaled, request on its way
  expect(r.execution.executor.inFlightCount).toBeGreaterThan(0);
  const drained = r.execution.executor.drain(5000);
  await expect(r.execution.executor.submit(stopLimit('alpha', T0 + 60))).rejects.toBeInstanceOf(NotReadyError);
  expect(await drained).toBe(true);
  expect((await running).outcome).toBe('accepted');
  expect(r.execution.executor.inFlightCount).toBe(0);
});

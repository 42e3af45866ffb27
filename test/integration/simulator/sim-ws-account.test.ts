import { Decimal } from '../../../src/domain/decimal';
import type { CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { signedPost, WsTestClient, type WsFrame } from '../../helpers/ws-test-client';

// The WebSocket twin's account channels over a real loopback socket: ordersPending event ids as
// websocket/account-streams/orders-pending.mdx documents them, deals_update, balanceSpot_update.
jest.setTimeout(60_000);

const KEY = 'ws-acct';
const SECRET = 'ws-acct-secret';
const T0 = 1_700_000_040;
const rows: CsvCandleRow[] = [
  ['100', '101', '99', '100'], // T0
  ['100', '106', '99.5', '104'], // T0+60: reaches 106 (a buy stop at 103 triggers)
  ['104', '105', '96', '97'], // T0+120: down to 96 (a resting buy at 98 fills, 2 of 20 volume)
  ['97', '98', '90', '92'],
  ['92', '93', '91', '92.5'],
// 20 BTC a minute: the default 10 % share fills 2 BTC per candle.
].map(([open, high, low, close], i) => ({ time: T0 + i * 60, open: open!, high: high!, low: low!, close: close!, volume: '20' }));

let sim: SimulatedExchange;
const clients: WsTestClient[] = [];
const d = (v: string) => new Decimal(v);

beforeEach(async () => {
  sim = await startSimulatedExchange({
    apiKey: KEY, apiSecret: SECRET, balances: { USDT: '10000', BTC: '1' }, collateralBalances: { USDT: '1000' }, markets: [{ name: 'BTC_USDT', rows }],
    speed: 0, start: T0, rateLimits: false, ws: { tickIntervals: { candlesMs: 100, lastpriceMs: 100, balanceMs: 100 } },
  });
  sim.advanceBy(60); // the first candle closed: arriving orders have volume to trade against, last price 100
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await sim.close();
});

async function authorized(): Promise<WsTestClient> {
  const c = await WsTestClient.connect(sim.wsUrl);
  clients.push(c);
  const res = await signedPost(sim.url, '/api/v4/profile/websocket_token', KEY, SECRET);
  const token = (res.body as { websocket_token: string }).websocket_token;
  expect(await c.call('authorize', [token, 'public'])).toMatchObject({ result: { status: 'success' }, error: null });
  return c;
}

/** The next ordersPending_update of order `id`: [event id, order]. */
async function orderEvent(c: WsTestClient, id: number): Promise<[number, Record<string, unknown>]> {
  const push = await c.next((m) => m.method === 'ordersPending_update' && (m.params as [number, { id: number }])[1].id === id);
  return push.params as [number, Record<string, unknown>];
}

function eventsOf(frames: readonly WsFrame[], id: number): number[] {
  return frames.map((f) => f.params as [number, { id: number }]).filter((p) => p[1].id === id).map((p) => p[0]);
}

const settle = () => new Promise((r) => setTimeout(r, 500));

test('a new resting order (placed over HTTP) sends event 1 with the documented order object', async () => {
  const c = await authorized();
  expect(await c.call('ordersPending_subscribe', ['BTC_USDT'])).toEqual({ id: 2, result: { status: 'success' }, error: null });
  const placed = await signedPost(sim.url, '/api/v4/order/new', KEY, SECRET, { market: 'BTC_USDT', side: 'buy', amount: '0.1', price: '90' });
  expect(placed.status).toBe(200);
  const id = (placed.body as { orderId: number }).orderId;
  const [event, order] = await orderEvent(c, id);
  expect(event).toBe(1);
  expect(order).toEqual({
    id, market: 'BTC_USDT', type: 1, side: 2, post_only: false, ioc: false, ctime: T0 + 60, mtime: T0 + 60,
    price: '90', amount: '0.1', left: '0.1', deal_stock: '0', deal_money: '0', deal_fee: '0', client_order_id: '',
    stp: 'no', status: 'OPEN', position_side: 'BOTH', rpi: false, retail: false, reduce_only: false,
  });
  const listed = await c.call('ordersPending_request', ['BTC_USDT', 0, 30]);
  expect(listed).toEqual({ id: 3, result: { limit: 30, offset: 0, total: 1, records: [order] }, error: null });
  expect(await c.call('ordersPending_request', ['BTC_USDT', 0, 101])).toMatchObject({ result: null, error: { code: 1 } });
});

test('partial fill sends 2; a cancel then sends 3 showing the deal; a cancel without deal sends 3 with none', async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  const order = sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('3'), price: d('98') });
  expect((await orderEvent(c, order.id))[0]).toBe(1);
  sim.advanceBy(120); // T0+120 reaches 96: 2 of the 3 BTC fill
  const [partial, partialOrder] = await orderEvent(c, order.id);
  expect(partial).toBe(2);
  expect(partialOrder).toMatchObject({ status: 'PARTIALLY_FILLED', left: '1', deal_stock: '2' });
  sim.engine.cancelOrder(KEY, 'BTC_USDT', { orderId: order.id });
  const [finished, finishedOrder] = await orderEvent(c, order.id);
  expect(finished).toBe(3);
  expect(finishedOrder).toMatchObject({ status: 'CANCELED', left: '1', deal_stock: '2' });

  const idle = sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.2'), price: d('50') });
  expect((await orderEvent(c, idle.id))[0]).toBe(1);
  sim.engine.cancelOrder(KEY, 'BTC_USDT', { orderId: idle.id });
  const [cancelled, cancelledOrder] = await orderEvent(c, idle.id);
  expect(cancelled).toBe(3);
  expect(cancelledOrder).toMatchObject({ status: 'CANCELED', deal_stock: '0', left: '0.2' });
});

test('an order that fills completely on arrival sends only event 3', async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  const order = sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.1'), price: d('200') });
  expect(order.status).toBe('FILLED');
  const [event, pushed] = await orderEvent(c, order.id);
  expect(event).toBe(3);
  expect(pushed).toMatchObject({ status: 'FILLED', left: '0', deal_stock: '0.1' });
  await settle();
  expect(eventsOf(c.drain('ordersPending_update'), order.id)).toEqual([]);
});

test('an order that fills in part on arrival sends one event 1 already showing that fill', async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  const order = sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('3'), price: d('200') }); // 2 of 3 on arrival
  const [event, pushed] = await orderEvent(c, order.id);
  expect(event).toBe(1);
  expect(pushed).toMatchObject({ status: 'PARTIALLY_FILLED', left: '1', deal_stock: '2' });
  await settle();
  expect(eventsOf(c.drain('ordersPending_update'), order.id)).toEqual([]);
});

test("a stop's activation sends a second event 1 with the same id, then its fill", async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  const stop = sim.engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.1'), price: d('110'), activationPrice: d('103') });
  const [placed, placedOrder] = await orderEvent(c, stop.id);
  expect(placed).toBe(1);
  expect(placedOrder).toMatchObject({ type: 3, status: 'OPEN' });
  sim.advanceBy(60); // T0+60 reaches 106: triggers at 103 and fills at once
  const [activated, activatedOrder] = await orderEvent(c, stop.id);
  expect(activated).toBe(1);
  expect(activatedOrder).toMatchObject({ id: stop.id, type: 3, status: 'OPEN', deal_stock: '0' });
  const [filled, filledOrder] = await orderEvent(c, stop.id);
  expect(filled).toBe(3);
  expect(filledOrder).toMatchObject({ status: 'FILLED', deal_stock: '0.1' });
});

test('OCO legs are orders of the account: event 1 each (types 9 and 7), listed by ordersPending_request', async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  const oco = sim.engine.placeOco(KEY, {
    market: 'BTC_USDT', side: 'sell', amount: d('0.1'), price: d('120'), activationPrice: d('95'), stopLimitPrice: d('94'),
  });
  expect(await orderEvent(c, oco.stopLoss.id)).toEqual([1, expect.objectContaining({ type: 9, side: 1, status: 'OPEN' })]);
  expect(await orderEvent(c, oco.takeProfit.id)).toEqual([1, expect.objectContaining({ type: 7, side: 1, status: 'OPEN' })]);
  const listed = await c.call('ordersPending_request', ['BTC_USDT', 0, 100]);
  expect((listed.result as { total: number }).total).toBe(2);
});

test('deals_update carries each fill (nested subscribe params); deals_request lists them', async () => {
  const c = await authorized();
  expect(await c.call('deals_subscribe', ['BTC_USDT'])).toMatchObject({ result: null, error: { code: 1 } });
  expect(await c.call('deals_subscribe', [['BTC_USDT']])).toMatchObject({ result: { status: 'success' } });
  const order = sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.1'), price: d('200'), clientOrderId: 'ws-1' });
  const push = await c.push('deals_update');
  const deal = sim.engine.deals(KEY)[0]!;
  expect(push.params).toEqual([deal.id, T0 + 60, 'BTC_USDT', order.id, '100', '0.1', deal.fee.toString(), 'ws-1', 2, 2, 'USDT']);
  const listed = await c.call('deals_request', ['BTC_USDT', 0, 10]);
  expect(listed.result).toEqual({
    limit: 10, offset: 0, records: [{
      time: T0 + 60, id: deal.id, side: 2, role: 2, price: '100', amount: '0.1', deal: '10', fee: deal.fee.toString(),
      order_id: order.id, deal_order_id: 0, market: 'BTC_USDT', client_order_id: 'ws-1', fee_asset: 'USDT',
    }],
  });
  expect(await c.call('deals_unsubscribe', [])).toMatchObject({ result: { status: 'success' } });
  sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.1'), price: d('200') });
  await settle();
  expect(c.drain('deals_update')).toEqual([]);
});

test('balanceSpot_update sends only the assets whose balance changed', async () => {
  const c = await authorized();
  expect(await c.call('balanceSpot_request', ['USDT', 'BTC'])).toEqual({
    id: 2, result: { USDT: { available: '10000', freeze: '0' }, BTC: { available: '1', freeze: '0' } }, error: null,
  });
  expect(await c.call('balanceSpot_subscribe', ['NOPE'])).toMatchObject({ result: null, error: { code: 1 } });
  await c.call('balanceSpot_subscribe', []);
  await settle();
  expect(c.drain('balanceSpot_update')).toEqual([]);
  sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('1'), price: d('50') }); // freezes USDT only
  const frozen = await c.push('balanceSpot_update');
  const [changed] = frozen.params as [Record<string, { available: string; freeze: string }>];
  expect(Object.keys(changed)).toEqual(['USDT']);
  expect(new Decimal(changed['USDT']!.freeze).greaterThan(50)).toBe(true);
  await settle();
  expect(c.drain('balanceSpot_update')).toEqual([]);
  sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.1'), price: d('200') }); // fills: BTC and USDT move
  const [afterFill] = (await c.push('balanceSpot_update')).params as [Record<string, unknown>];
  expect(Object.keys(afterFill).sort()).toEqual(['BTC', 'USDT']);
  expect(afterFill['BTC']).toEqual({ available: '1.1', freeze: '0' });
});

test('a subscribe replaces the previous one; a new connection gets nothing from before', async () => {
  const c = await authorized();
  await c.call('ordersPending_subscribe', ['BTC_USDT']);
  await c.call('ordersPending_subscribe', []);
  sim.engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: d('0.2'), price: d('50') });
  const fresh = await authorized();
  await fresh.call('ordersPending_subscribe', ['BTC_USDT']);
  await settle();
  expect(c.drain('ordersPending_update')).toEqual([]);
  expect(fresh.drain('ordersPending_update')).toEqual([]);
});

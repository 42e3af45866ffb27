import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';
import { startAccountStream, type AccountStream } from '../../../src/app/stream-wiring';
import { parseConfig } from '../../../src/config/load';
import { deriveClientOrderId } from '../../../src/core/client-order-id';
import { Decimal } from '../../../src/domain/decimal';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { httpClient, MARKET, replica, startSim, T0, until, type Replica } from '../execution/harness';

/**
 * Issue #29 finding 4, over a real socket: the daemon's account-stream client (startAccountStream)
 * connects to a WebSocket server on loopback that forges `ordersPending_update` pushes (the
 * simulator only pushes what its engine does, so a forger stands in for a hostile or broken venue
 * stream); the journal is a real Redis, REST is the simulator holding the real order. A push that
 * names a 1 BTC record by its client order id (no venue order id journaled yet), or later by its
 * order id, but shows another market, side or amount, and a finished 0.0001, never finishes the
 * record: REST settles it (to the real order), the counter moves, a warning names the field.
 */
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;
let stream: AccountStream | undefined;
let metrics: Metrics;
let http: Server;
let wss: WebSocketServer;
let wsUrl: string;
const sockets: WebSocket[] = [];
const logLines: Record<string, unknown>[] = [];

const config = parseConfig({
  mode: 'paper',
  paper: { exchangeUrl: 'http://127.0.0.1:1' },
  strategies: { enabled: [{ name: 'alpha', markets: [MARKET], interval: '1m' }] },
  exchange: { websocket: { staleAfterMs: 5000, pongTimeoutMs: 1000, pingIntervalMs: 5000, backoffMinMs: 50, backoffMaxMs: 200 } },
}, {});

beforeEach(async () => {
  sim = await startSim();
  http = createServer();
  // The forger: answers every request (authorize, subscribe, ping) with success; pushes are sent by the test.
  wss = new WebSocketServer({ server: http, path: '/ws' });
  wss.on('connection', (ws) => {
    sockets.push(ws);
    ws.on('message', (data) => {
      const req = JSON.parse(String(data)) as { id: number; method: string };
      ws.send(JSON.stringify({ id: req.id, result: req.method === 'ping' ? 'pong' : { status: 'success' }, error: null }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  wsUrl = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
});

afterEach(async () => {
  stream?.stop();
  stream = undefined;
  r.execution.reconciler.stop();
  for (const ws of sockets) ws.terminate();
  sockets.length = 0;
  logLines.length = 0;
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await sim.close();
  await ctx.cleanup();
});

async function begin(): Promise<AccountStream> {
  const exchange = httpClient(sim.url);
  r = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: exchange, owner: 'forged-a', scopes: [['alpha', MARKET]] });
  await r.execution.reconciler.runOnce();
  metrics = createMetrics(new Registry(), { defaultMetrics: false });
  const log = createLogger({ level: 'warn', destination: { write: (line: string) => { logLines.push(JSON.parse(line) as Record<string, unknown>); } } });
  stream = startAccountStream({
    config, url: wsUrl, exchange, metrics, log,
    markets: [MARKET], exec: r.execution, store: r.store, events: r.events, onChange: () => undefined,
  });
  await until(() => stream!.isHealthy());
  return stream;
}

/**
 * A 1 BTC stop-limit journaled as `submitted` (sent, no answer yet: no venue order id) and the real
 * order at the venue under its client order id, as after a lost create answer.
 */
async function submittedOneBtc(): Promise<{ cid: string; venueOrderId: number }> {
  const cid = deriveClientOrderId({ strategy: 'alpha', market: MARKET, candleTime: T0, tag: undefined, leg: 'o' });
  const lease = r.keeper.leaseFor('alpha', MARKET)!;
  const { record } = await r.store.recordSubmit({
    clientOrderId: cid, strategy: 'alpha', market: MARKET, side: 'buy', kind: 'stop_limit',
    amount: '1', price: '105.5', activationPrice: '105', candleTime: T0,
  }, lease);
  expect(record).toMatchObject({ status: 'submitted', orderId: undefined });
  const placed = await httpClient(sim.url).placeStopLimit({
    market: MARKET, side: 'buy', amount: new Decimal('1'), price: new Decimal('105.5'), activationPrice: new Decimal('105'), clientOrderId: cid,
  });
  return { cid, venueOrderId: placed.orderId };
}

/** A finished order (event 3) as the venue's object: everything traded, nothing left. */
function finishedPush(cid: string, over: Record<string, unknown>): string {
  const order = {
    id: 990001, market: MARKET, type: 3, side: 2, post_only: false, ioc: false, ctime: T0 + 1, mtime: T0 + 2,
    price: '105.5', amount: '1', left: '0', deal_stock: '1', deal_money: '105.5', deal_fee: '0.1',
    client_order_id: cid, stp: 'no', status: 'FILLED', ...over,
  };
  return JSON.stringify({ id: null, method: 'ordersPending_update', params: [3, order] });
}

async function mismatches(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await metrics.streamPushMismatches.get()).values) out[String(v.labels['field'])] = v.value;
  return out;
}

test('forged pushes for another market, another side, or 0.0001 do not finish a 1 BTC record: REST settles it, the counter and a warning say why', async () => {
  const s = await begin();
  const { cid, venueOrderId } = await submittedOneBtc();
  const ws = sockets[sockets.length - 1]!;

  // Each claims the record by its client order id and says "filled"; none agrees with it.
  ws.send(finishedPush(cid, { market: 'ETH_USDT' }));
  ws.send(finishedPush(cid, { side: 1 }));
  ws.send(finishedPush(cid, { amount: '0.0001', deal_stock: '0.0001', deal_money: '0.01' }));
  await until(async () => (await mismatches())['amount'] === 1);
  await s.idle();

  const record = (await r.store.get(cid))!;
  // Settled by REST to the real order, resting at the venue; never filled, never the forged id.
  expect(record).toMatchObject({ status: 'open', orderId: venueOrderId, filledAmount: '0' });
  expect(record.history.map((h) => h.to)).toEqual(['submitted', 'open']);
  expect(r.events.ofType('OrderFilled')).toHaveLength(0);
  expect(await mismatches()).toMatchObject({ market: 1, side: 1, amount: 1, kind: 0, price: 0, orderId: 0 });
  const warned = logLines.filter((l) => l['msg'] === 'order push disagrees with the journal record it names: not applied, the venue is asked over REST');
  expect(warned.map((l) => [l['clientOrderId'], l['field'], l['journal'], l['push']])).toEqual([
    [cid, 'market', MARKET, 'ETH_USDT'], [cid, 'side', 'buy', 'sell'], [cid, 'amount', '1', '0.0001'],
  ]);
});

test('with the venue order id journaled: a push with that id but another amount (or another id) does not move the record either', async () => {
  const s = await begin();
  const { cid, venueOrderId } = await submittedOneBtc();
  await r.execution.settler.settle((await r.store.get(cid))!);
  expect(await r.store.get(cid)).toMatchObject({ status: 'open', orderId: venueOrderId });
  const ws = sockets[sockets.length - 1]!;

  ws.send(finishedPush(cid, { id: venueOrderId, amount: '0.0001', deal_stock: '0.0001', deal_money: '0.01' }));
  ws.send(finishedPush(cid, { id: venueOrderId, type: 1 }));
  ws.send(finishedPush(cid, { id: venueOrderId, price: '1' }));
  ws.send(finishedPush(cid, { id: venueOrderId + 1000 }));
  await until(async () => (await mismatches())['orderId'] === 1);
  await s.idle();

  expect(await r.store.get(cid)).toMatchObject({ status: 'open', orderId: venueOrderId, filledAmount: '0' });
  expect(r.events.ofType('OrderFilled')).toHaveLength(0);
  expect(await mismatches()).toMatchObject({ amount: 1, kind: 1, price: 1, orderId: 1, market: 0, side: 0 });

  // A push that agrees is still applied (the stream keeps its job): the real order's partial fill.
  ws.send(JSON.stringify({ id: null, method: 'ordersPending_update', params: [2, {
    id: venueOrderId, market: MARKET, type: 3, side: 2, ctime: T0 + 1, mtime: T0 + 5, price: '105.50', amount: '1.0',
    left: '0.75', deal_stock: '0.25', deal_money: '26.375', deal_fee: '0.02', client_order_id: cid, status: 'PARTIALLY_FILLED',
  }] }));
  await until(async () => (await r.store.get(cid))?.status === 'partially_filled');
  expect(await r.store.get(cid)).toMatchObject({ filledAmount: '0.25', orderId: venueOrderId });
});

test('REST applies the same rule: a venue order with the record\'s client order id but another amount is not taken as its order (ambiguous, never filled or rejected)', async () => {
  const s = await begin();
  const cid = deriveClientOrderId({ strategy: 'alpha', market: MARKET, candleTime: T0, tag: undefined, leg: 'o' });
  await r.store.recordSubmit({
    clientOrderId: cid, strategy: 'alpha', market: MARKET, side: 'buy', kind: 'stop_limit',
    amount: '1', price: '105.5', activationPrice: '105', candleTime: T0,
  }, r.keeper.leaseFor('alpha', MARKET)!);
  // Someone else's order on the account under our id, 0.5 instead of 1.
  const foreign = await httpClient(sim.url).placeStopLimit({
    market: MARKET, side: 'buy', amount: new Decimal('0.5'), price: new Decimal('105.5'), activationPrice: new Decimal('105'), clientOrderId: cid,
  });
  expect(await r.execution.settler.settle((await r.store.get(cid))!)).toBe('ambiguous');
  expect(await r.store.get(cid)).toMatchObject({ status: 'submitted', orderId: undefined, filledAmount: '0' });
  expect(r.events.ofType('OrderIdentityAmbiguous').map((e) => e.reason)).toEqual([
    `order ${foreign.orderId} at the venue (active) claims ${cid} but disagrees with the journal on amount: journal 1, venue report 0.5`,
  ]);
  await s.idle();
});

import { createHmac } from 'node:crypto';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';

// Raw HTTP against the simulator: every authentication and nonce failure gets the exchange's answer.
const KEY = 'raw-key';
const SECRET = 'raw-secret';
let sim: SimulatedExchange;

beforeEach(async () => {
  sim = await startSimulatedExchange({
    apiKey: KEY, apiSecret: SECRET, balances: { USDT: '1000', BTC: '1' }, speed: 0, start: 1_700_000_040, rateLimits: false,
  });
});
afterEach(async () => {
  await sim.close();
});

interface RawOptions {
  body?: Record<string, unknown>;
  rawBody?: string;
  payload?: string;
  signature?: string;
  apiKey?: string | null;
  secret?: string;
}

/** Signs like the spec (or deliberately not), sends with fetch, returns status + parsed body. */
async function post(path: string, o: RawOptions = {}): Promise<{ status: number; body: unknown }> {
  const raw = o.rawBody ?? JSON.stringify({ request: path, nonce: String(Date.now()), nonceWindow: true, ...o.body });
  const payload = o.payload ?? Buffer.from(raw).toString('base64');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-TXC-PAYLOAD': payload };
  headers['X-TXC-SIGNATURE'] = o.signature ?? createHmac('sha512', o.secret ?? SECRET).update(payload).digest('hex');
  if (o.apiKey !== null) headers['X-TXC-APIKEY'] = o.apiKey ?? KEY;
  const res = await fetch(`${sim.url}${path}`, { method: 'POST', headers, body: raw });
  const text = await res.text();
  return { status: res.status, body: text === '' ? '' : JSON.parse(text) };
}

const BALANCE = '/api/v4/trade-account/balance';
const unauthorized = { status: 401, body: { code: 10, message: 'Unauthorized request.', errors: {} } };
const tooMany = { status: 429, body: { code: 0, errors: {}, message: 'Too many requests.' } };

test('a correctly signed request succeeds', async () => {
  const res = await post(BALANCE, { body: { ticker: 'USDT' } });
  expect(res).toEqual({ status: 200, body: { USDT: { available: '1000', freeze: '0' } } });
});

test('tampered body (payload no longer base64 of the body): Invalid payload.', async () => {
  const good = JSON.stringify({ request: BALANCE, nonce: String(Date.now()), nonceWindow: true });
  const payload = Buffer.from(good).toString('base64');
  const res = await post(BALANCE, { rawBody: good.replace('}', ',"ticker":"BTC"}'), payload });
  expect(res).toEqual({ status: 400, body: { code: 9, message: 'Invalid payload.', errors: {} } });
});

test('wrong signature, unknown key, missing key header: Unauthorized request.', async () => {
  expect(await post(BALANCE, { secret: 'not-the-secret' })).toEqual(unauthorized);
  expect(await post(BALANCE, { signature: 'zz' })).toEqual(unauthorized);
  expect(await post(BALANCE, { apiKey: 'nobody' })).toEqual(unauthorized);
  expect(await post(BALANCE, { apiKey: null })).toEqual(unauthorized);
});

test('missing payload header and missing nonce/request fields', async () => {
  expect(await post(BALANCE, { payload: '' })).toEqual({ status: 401, body: { code: 9, message: 'Payload not provided.', errors: {} } });
  const noNonce = await post(BALANCE, { rawBody: JSON.stringify({ request: BALANCE }) });
  expect(noNonce.body).toEqual({ code: 0, message: 'Nonce not provided.', errors: {} });
  const noRequest = await post(BALANCE, { rawBody: JSON.stringify({ nonce: String(Date.now()) }) });
  expect(noRequest.body).toEqual({ code: 0, message: 'Request not provided.', errors: {} });
  const badWindow = await post(BALANCE, { rawBody: JSON.stringify({ request: BALANCE, nonce: String(Date.now()), nonceWindow: 'yes' }) });
  expect(badWindow.body).toEqual({ code: 0, message: 'Invalid nonceWindow.', errors: {} });
});

test('replayed nonce: 429 Too many requests.; nonce-window nonce off by more than 5 s: the venue\'s window message', async () => {
  const raw = JSON.stringify({ request: BALANCE, nonce: String(Date.now()), nonceWindow: true });
  expect((await post(BALANCE, { rawBody: raw })).status).toBe(200);
  expect(await post(BALANCE, { rawBody: raw })).toEqual(tooMany);
  const outside = { status: 429, body: { code: 0, message: 'Your nonce is more than 5 seconds lesser than the current nonce.' } };
  const stale = JSON.stringify({ request: BALANCE, nonce: String(Date.now() - 6000), nonceWindow: true });
  expect(await post(BALANCE, { rawBody: stale })).toEqual(outside);
  const future = JSON.stringify({ request: BALANCE, nonce: String(Date.now() + 6000), nonceWindow: true });
  expect(await post(BALANCE, { rawBody: future })).toEqual(outside);
});

test('without nonceWindow the nonce must strictly increase (any integer)', async () => {
  const send = (nonce: number) => post(BALANCE, { rawBody: JSON.stringify({ request: BALANCE, nonce }) });
  expect((await send(10)).status).toBe(200);
  expect((await send(11)).status).toBe(200);
  expect(await send(11)).toEqual(tooMany);
  expect(await send(5)).toEqual(tooMany);
});

test('ccxt-style request: string nonce, nonceWindow false, camelCase clientOrderId', async () => {
  const path = '/api/v4/order/stop_limit';
  const raw = JSON.stringify({
    request: path, nonce: String(Date.now()), nonceWindow: false, market: 'BTC_USDT', side: 'sell', amount: '0.01',
    price: '29000', activation_price: '29100', clientOrderId: 'ccxt0123456789abcdef',
  });
  const res = await post(path, { rawBody: raw });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    clientOrderId: 'ccxt0123456789abcdef', market: 'BTC_USDT', side: 'sell', type: 'stop limit', amount: '0.01', left: '0.01',
    price: '29000', activation_price: '29100', activationCondition: 'lte', activated: 0, postOnly: false, ioc: false, status: 'OPEN',
  });
  const cancel = await post('/api/v4/order/cancel', {
    rawBody: JSON.stringify({ request: '/api/v4/order/cancel', nonce: String(Date.now() + 1), nonceWindow: false, market: 'BTC_USDT', orderId: (res.body as { orderId: number }).orderId }),
  });
  expect(cancel.body).toMatchObject({ status: 'CANCELED' });
});

test('validation failures: private code 30 shape (422), public kline shape (200)', async () => {
  const res = await post('/api/v4/order/stop_limit', { body: { market: 'BTC_USDT', side: 'up', amount: '1', price: '1', activation_price: '1' } });
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ code: 30, message: 'Validation failed', errors: { side: ["Side field should contain only 'buy' or 'sell' values."] } });
  const notFound = await post('/api/v4/order/cancel', { body: { market: 'BTC_USDT', orderId: 424242 } });
  expect(notFound).toEqual({ status: 400, body: { code: 2, message: 'Inner validation failed', errors: { orderId: ['Unexecuted order was not found.'] } } });
  const kline = await fetch(`${sim.url}/api/v1/public/kline?market=BTC_USDT&start=20&end=10`);
  expect(kline.status).toBe(200);
  expect(await kline.json()).toEqual({ success: false, message: { end: ['End field must be greater then start.'] }, result: null });
  expect((await fetch(`${sim.url}/api/v4/nowhere`)).status).toBe(404);
});

test('rate limits per scope answer 429', async () => {
  await sim.close();
  sim = await startSimulatedExchange({
    apiKey: KEY, apiSecret: SECRET, speed: 0, start: 1_700_000_040,
    rateLimits: { kline: { capacity: 2, windowMs: 60_000 }, public: { capacity: 2, windowMs: 60_000 }, orders: { capacity: 1, windowMs: 60_000 },
      activeOrders: { capacity: 1, windowMs: 60_000 }, tradeAccount: { capacity: 1, windowMs: 60_000 }, mainAccount: { capacity: 1, windowMs: 60_000 },
      private: { capacity: 1, windowMs: 60_000 } },
  });
  expect((await post(BALANCE)).status).toBe(200);
  expect(await post(BALANCE)).toEqual(tooMany);
  const pings = await Promise.all([1, 2, 3].map(() => fetch(`${sim.url}/api/v4/public/ping`).then((r) => r.status)));
  expect(pings.sort()).toEqual([200, 200, 429]);
});

test('faults: forced 5xx, 429, lost answer (order created anyway), seeded latency', async () => {
  sim.faults.enqueue('error5xx', { endpoint: 'tradeBalance', count: 2 });
  expect((await post(BALANCE)).status).toBe(500);
  const gateway = await fetch(`${sim.url}${BALANCE}`, { method: 'POST', body: '{}' });
  expect(gateway.status).toBe(503);
  sim.faults.enqueue('rateLimit429');
  expect(await post(BALANCE)).toEqual(tooMany);

  sim.faults.enqueue('lostAnswer', { endpoint: 'stopLimit' });
  await expect(post('/api/v4/order/stop_limit', {
    body: { market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activation_price: '29100', clientOrderId: 'lost-1' },
  })).rejects.toThrow();
  expect(sim.engine.activeOrders(KEY, { clientOrderId: 'lost-1' })).toHaveLength(1);

  sim.faults.configure({ timeoutRate: 1, timeoutHoldMs: 50, endpoints: ['ping'] });
  await expect(fetch(`${sim.url}/api/v4/public/ping`)).rejects.toThrow();
  expect((await post(BALANCE)).status).toBe(200); // other endpoints untouched
  sim.faults.reset();
  expect((await fetch(`${sim.url}/api/v4/public/ping`)).status).toBe(200);
  expect(sim.faults.injected()).toEqual({ error5xx: 2, rateLimit429: 1, timeout: 1, lostAnswer: 1 });
});

test('ccxt flow: loadMarkets (markets + assets), tickers, limit order via order/new, open orders, cancelAllOrdersAfter', async () => {
  const get = async (path: string) => (await fetch(`${sim.url}${path}`)).json() as Promise<Record<string, unknown>>;
  const markets = await get('/api/v4/public/markets') as unknown as { name: string; makerFee: string }[];
  expect(markets[0]).toMatchObject({ name: 'BTC_USDT', makerFee: '0.1', stockPrec: '6', moneyPrec: '2', minTotal: '5.05' });
  expect(await get('/api/v4/public/assets')).toHaveProperty('BTC.can_deposit', true);
  expect(await get('/api/v4/public/ticker')).toHaveProperty('BTC_USDT.isFrozen', false);
  expect(await get('/api/v1/public/ticker?market=BTC_USDT')).toHaveProperty('success', true);

  let nonce = Date.now();
  const ccxt = (path: string, params: Record<string, unknown>) => post(path, {
    rawBody: JSON.stringify({ request: path, nonce: String(++nonce), nonceWindow: false, ...params }),
  });
  const last = Number(sim.engine.lastPrice('BTC_USDT'));
  const price = (last * 0.9).toFixed(2);
  const created = await ccxt('/api/v4/order/new', { market: 'BTC_USDT', side: 'buy', amount: '0.001', price, clientOrderId: 'ccxt00000000000000a1' });
  expect(created).toMatchObject({ status: 200, body: { type: 'limit', clientOrderId: 'ccxt00000000000000a1', status: 'OPEN' } });
  const open = await ccxt('/api/v4/orders', { market: 'BTC_USDT', limit: 100 });
  expect((open.body as unknown[]).length).toBe(1);
  const timer = await ccxt('/api/v4/order/kill-switch', { market: 'BTC_USDT', timeout: '10' });
  expect(timer.body).toMatchObject({ market: 'BTC_USDT', types: null });
  expect((await ccxt('/api/v4/order/kill-switch', { market: 'BTC_USDT', timeout: 'null' })).body).toEqual([]);
  const balance = await ccxt('/api/v4/trade-account/balance', {});
  expect(balance.body).toHaveProperty('USDT.freeze');
  const klines = await get(`/api/v1/public/kline?market=BTC_USDT&interval=1m&start=${1_700_000_040 - 600}&limit=5`);
  expect((klines['result'] as unknown[]).length).toBe(5);
});

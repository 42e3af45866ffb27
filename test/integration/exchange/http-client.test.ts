import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SystemClock } from '../../../src/core/clock';
import {
  BadResponseError, ExchangeUnavailableError, ExchangeValidationError, RateLimitedError, RequestTimeoutError,
  RequestValidationError, TradebotError,
} from '../../../src/domain/errors';
import { HttpExchangeClient, type HttpExchangeClientOptions, type RequestEvent } from '../../../src/exchange/http/client';
import { verifySignature } from '../../../src/exchange/http/sign';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { LIMITS } from '../../../src/limiter/limits';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { closedPortUrl, serversClosedAfterEach, type SeenRequest } from './loopback-server';

const SECRET = 'integration-secret-do-not-print';
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '../../fixtures', `${name}.json`), 'utf8'));
const server = serversClosedAfterEach();

interface Harness {
  client: HttpExchangeClient;
  delays: number[];
  events: RequestEvent[];
}
function client(baseUrl: string, extra: Partial<HttpExchangeClientOptions> = {}): Harness {
  const clock = new SystemClock();
  const delays: number[] = [];
  const events: RequestEvent[] = [];
  const c = new HttpExchangeClient({
    baseUrl,
    primaryRegion: 'global',
    credentials: { apiKey: 'key-1', apiSecret: SECRET },
    nonceSource: new InMemoryNonceSource({ clock }),
    limiter: new InMemoryRateLimiter({ clock }),
    clock,
    timeoutMs: 2000,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 250 },
    sleep: async (ms) => void delays.push(ms), // backoff is recorded, not waited: no timing in tests
    random: () => 1,
    onRequest: (e) => events.push(e),
    ...extra,
  });
  return { client: c, delays, events };
}

const body = (r: SeenRequest) => JSON.parse(r.body) as Record<string, unknown>;
const stopLimit = { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-x-1' } as const;

describe('HttpExchangeClient over loopback HTTP', () => {
  test('signed private read: the server can verify every request; 503 then 200 is retried with backoff and a fresh nonce', async () => {
    const s = await server((req, i) => {
      expect(verifySignature(String(req.headers['x-txc-payload']), String(req.headers['x-txc-signature']), SECRET)).toBe(true);
      expect(Buffer.from(String(req.headers['x-txc-payload']), 'base64').toString('utf8')).toBe(req.body);
      return i < 2 ? { status: 503, body: '<html>maintenance</html>' } : { body: fixture('http_post_trade_account_balance') };
    });
    const h = client(s.url);
    const balances = await h.client.fetchTradingBalances('BTC');
    expect(balances['BTC']?.available.toString()).toBe('0.123');
    expect(s.requests).toHaveLength(3);
    const nonces = s.requests.map((r) => Number(body(r)['nonce']));
    expect(new Set(nonces).size).toBe(3);
    expect(nonces[1]! > nonces[0]! && nonces[2]! > nonces[1]!).toBe(true);
    expect(body(s.requests[0]!)).toMatchObject({ request: '/api/v4/trade-account/balance', nonceWindow: true, ticker: 'BTC' });
    expect(h.delays).toEqual([100, 200]); // exponential, full jitter with random() = 1
    expect(h.events.map((e) => e.outcome)).toEqual(['TB_ERR_EXCHANGE_UNAVAILABLE', 'TB_ERR_EXCHANGE_UNAVAILABLE', 'ok']);
  });

  test('429 on a read is retried; backoff is capped by maxDelayMs', async () => {
    const s = await server((_req, i) => (i < 3 ? { status: 429, body: '' } : { body: fixture('http_get_kline') }));
    const h = client(s.url);
    const candles = await h.client.fetchCandles({ market: 'BTC_USDT', interval: '1h', limit: 2 });
    expect(candles).toHaveLength(2);
    expect(s.requests[0]!.url).toBe('/api/v1/public/kline?market=BTC_USDT&interval=1h&limit=2');
    expect(h.delays).toEqual([100, 200, 250]);
  });

  test('a read gives up after the configured attempts with the last error', async () => {
    const s = await server(() => ({ status: 429, body: fixture('http_post_nonce_rejected') }));
    const h = client(s.url);
    const err = await h.client.fetchMainBalances().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).context['nonce']).toBe(true);
    expect(s.requests).toHaveLength(4);
  });

  test('reads fail over to the second region on connection refused', async () => {
    const eu = await server(() => ({ body: fixture('http_get_markets') }));
    const h = client(await closedPortUrl(), { euBaseUrl: eu.url });
    const markets = await h.client.fetchMarkets();
    expect(markets[0]?.name).toBe('SON_USD');
    expect(h.events.map((e) => [e.region, e.outcome])).toEqual([['global', 'TB_ERR_EXCHANGE_UNAVAILABLE'], ['eu', 'ok']]);
    expect(h.delays).toEqual([]);
  });

  test('reads fail over to the second region on 5xx', async () => {
    const global = await server(() => ({ status: 502, body: 'bad gateway' }));
    const eu = await server(() => ({ body: fixture('venue/http_post_orders') }));
    const h = client(global.url, { euBaseUrl: eu.url });
    const orders = await h.client.fetchActiveOrders({ market: 'BTC_USDT' });
    expect(orders[0]?.orderId).toBe(4180284841);
    expect([global.requests.length, eu.requests.length]).toEqual([1, 1]);
  });

  test('primaryRegion eu sends to the EU server first', async () => {
    const global = await server(() => ({ body: fixture('http_get_ping') }));
    const eu = await server(() => ({ body: fixture('http_get_ping') }));
    await client(global.url, { euBaseUrl: eu.url, primaryRegion: 'eu' }).client.ping();
    expect([global.requests.length, eu.requests.length]).toEqual([0, 1]);
  });

  test('order creation is sent once: no retry and no failover on 503', async () => {
    const global = await server(() => ({ status: 503 }));
    const eu = await server(() => ({ body: fixture('venue/http_post_order_stop_limit') }));
    const h = client(global.url, { euBaseUrl: eu.url });
    await expect(h.client.placeStopLimit(stopLimit)).rejects.toBeInstanceOf(ExchangeUnavailableError);
    expect([global.requests.length, eu.requests.length]).toEqual([1, 0]);
    expect(h.delays).toEqual([]);
  });

  test('order creation is not failed over on connection refused either', async () => {
    const eu = await server(() => ({ body: fixture('venue/http_post_order_stop_limit') }));
    const h = client(await closedPortUrl(), { euBaseUrl: eu.url });
    await expect(h.client.placeOco({ ...stopLimit, stopLimitPrice: '42000' })).rejects.toBeInstanceOf(ExchangeUnavailableError);
    expect(eu.requests).toHaveLength(0);
  });

  test('no answer within timeoutMs -> RequestTimeoutError (order creation: one attempt)', async () => {
    const s = await server(() => ({ hang: true }));
    // Long enough for the request to arrive on a loaded machine: the point is one attempt, then the error.
    const h = client(s.url, { timeoutMs: 1500 });
    const err = await h.client.placeStopLimit(stopLimit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(s.requests).toHaveLength(1);
  });

  test('unparseable JSON and wrong shapes -> BadResponseError naming the endpoint', async () => {
    const s = await server((req) => (req.url.includes('markets') ? { body: '{"oops' } : { body: { time: 'soon' } }));
    const h = client(s.url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
    const bad = await h.client.fetchMarkets().catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadResponseError);
    expect((bad as BadResponseError).context['endpoint']).toBe('markets');
    expect((bad as BadResponseError).message).toContain('markets');
    const shape = await h.client.fetchServerTime().catch((e: unknown) => e);
    expect(shape).toBeInstanceOf(BadResponseError);
    expect((shape as BadResponseError).message).toContain('time');
  });

  test('venue validation error -> ExchangeValidationError with field errors; no secret anywhere in the error', async () => {
    const s = await server(() => ({ status: 422, body: { code: 30, message: 'Validation failed', errors: { activation_price: ['Activation price should not be equal to the last price'] } } }));
    const h = client(s.url);
    const err = (await h.client.placeStopLimit(stopLimit).catch((e: unknown) => e)) as ExchangeValidationError;
    expect(err).toBeInstanceOf(ExchangeValidationError);
    expect(err.fieldErrors).toEqual({ activation_price: ['Activation price should not be equal to the last price'] });
    const text = `${err.message} ${err.stack} ${JSON.stringify(err)} ${JSON.stringify(err.context)}`;
    const req = s.requests[0]!;
    for (const secretish of [SECRET, String(req.headers['x-txc-signature']), String(req.headers['x-txc-payload'])]) {
      expect(text).not.toContain(secretish);
    }
  });

  test('an invalid request is refused locally: RequestValidationError and nothing sent', async () => {
    const s = await server(() => ({ body: {} }));
    const h = client(s.url);
    const err = (await h.client.placeStopLimit({ ...stopLimit, side: 'long' as 'buy' }).catch((e: unknown) => e)) as RequestValidationError;
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.fieldErrors).toEqual({ side: ["Side field should contain only 'buy' or 'sell' values."] });
    await expect(h.client.fetchCodes({ limit: 101 })).rejects.toBeInstanceOf(RequestValidationError);
    expect(s.requests).toHaveLength(0);
  });

  test('wire dialect: the venue\'s documented spelling by default, the spec\'s on request; OCO list path', async () => {
    const s = await server((req) => {
      const dialect = req.url === '/api/v4/orders/oco' || body(req)['client_order_id'] !== undefined ? 'spec' : 'venue';
      const name = req.url.includes('oco') ? (dialect === 'spec' ? 'spec/http_post_orders_oco' : 'venue/http_post_oco_orders') : `${dialect}/http_post_order_stop_limit`;
      if (req.url.includes('oco')) return { body: fixture(name) };
      // A venue echoes the client order id it was sent (the echo guard checks it).
      const idField = dialect === 'spec' ? 'client_order_id' : 'clientOrderId';
      return { body: { ...(fixture(name) as object), [idField]: body(req)[idField] } };
    });
    const venue = await client(s.url).client.placeStopLimit(stopLimit);
    const spec = await client(s.url, { dialect: 'spec' }).client.placeStopLimit(stopLimit);
    expect(body(s.requests[0]!)).toMatchObject({ clientOrderId: 'tb-x-1', activation_price: '41000', amount: '0.001' });
    expect(body(s.requests[0]!)['client_order_id']).toBeUndefined();
    expect(body(s.requests[1]!)).toMatchObject({ client_order_id: 'tb-x-1', activation_price: '41000' });
    expect(body(s.requests[1]!)['clientOrderId']).toBeUndefined();
    expect([venue.orderId, spec.orderId]).toEqual([4180284841, 3134995325]);
    await client(s.url).client.fetchActiveOcoOrders({ market: 'BTC_USDT' });
    await client(s.url, { dialect: 'spec' }).client.fetchActiveOcoOrders({ market: 'BTC_USDT' });
    expect(s.requests.slice(2).map((r) => r.url)).toEqual(['/api/v4/oco-orders', '/api/v4/orders/oco']);
  });

  test('an answer in the other dialect\'s shape is a BadResponseError naming the field, not half understood', async () => {
    const s = await server(() => ({ body: fixture('spec/http_post_orders') }));
    const err = (await client(s.url).client.fetchActiveOrders({ market: 'BTC_USDT' }).catch((e: unknown) => e)) as BadResponseError;
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toMatch(/orderId.*venue dialect/);
  });

  test('kill-switch sends the timeout as a string, null to delete', async () => {
    const s = await server((req) => ({ body: body(req)['timeout'] === null ? [] : fixture('http_post_order_kill_switch') }));
    const h = client(s.url);
    expect(await h.client.setKillSwitch({ market: 'BTC_USDT', timeoutSeconds: 60 })).toMatchObject({ cancellationTime: 1686127343 });
    expect(await h.client.setKillSwitch({ market: 'BTC_USDT', timeoutSeconds: null })).toBeNull();
    expect(s.requests.map((r) => body(r)['timeout'])).toEqual(['60', null]);
  });

  test('the limiter makes queued callers wait, in order, over real HTTP', async () => {
    const s = await server((req) => ({ body: req.url.includes('cancel') ? fixture('venue/http_post_order_cancel') : fixture('venue/http_post_orders') }));
    const clock = new SystemClock();
    // 2 per 120 ms with half as burst: a bucket of 1 token refilled every 60 ms.
    const tiny = { capacity: 2, windowMs: 120 };
    const limiter = new InMemoryRateLimiter({ clock, limits: { ...LIMITS, activeOrders: tiny, orders: tiny }, safetyMargin: 1, burstFraction: 0.5 });
    const h = client(s.url, { limiter });
    await limiter.acquire('orders'); // empty both buckets so every call below has to queue
    await limiter.acquire('activeOrders');
    const calls = [
      h.client.fetchActiveOrders({ market: 'BTC_USDT', limit: 1 }),
      h.client.fetchActiveOrders({ market: 'BTC_USDT', limit: 2 }),
      h.client.cancelOrder({ market: 'BTC_USDT', orderId: 4180284841 }),
    ];
    await Promise.all(calls);
    const reads = s.requests.filter((r) => r.url === '/api/v4/orders').map((r) => body(r)['limit']);
    expect(reads).toEqual([1, 2]);
    expect(body(s.requests.find((r) => r.url === '/api/v4/order/cancel')!)).toMatchObject({ market: 'BTC_USDT', orderId: 4180284841 });
  });

  test('every error is a TradebotError', async () => {
    const s = await server(() => ({ status: 404, body: '' }));
    const err = await client(s.url).client.issueJwt().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TradebotError);
  });
});

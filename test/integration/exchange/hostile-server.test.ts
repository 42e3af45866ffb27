import type { ServerResponse } from 'node:http';
import { SystemClock } from '../../../src/core/clock';
import {
  BadResponseError, RedirectRefusedError, RequestTimeoutError, ResponseTooLargeError, type TradebotError,
} from '../../../src/domain/errors';
import { HttpExchangeClient, type HttpExchangeClientOptions } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { runApi } from '../../../src/cli/api-command';
import { serversClosedAfterEach } from './loopback-server';

/**
 * A misbehaving server in front of the client, each case over real loopback HTTP: every one ends in
 * a typed error (no hang, no redirect followed, no unbounded read), and the connection is dropped.
 */
const SECRET = 'hostile-secret-do-not-print';
const server = serversClosedAfterEach();

function client(baseUrl: string, extra: Partial<HttpExchangeClientOptions> = {}): HttpExchangeClient {
  const clock = new SystemClock();
  return new HttpExchangeClient({
    baseUrl, primaryRegion: 'global', credentials: { apiKey: 'key-1', apiSecret: SECRET },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock,
    timeoutMs: 500, retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, sleep: async () => undefined,
    ...extra,
  });
}

/** A response that resolves `closed` when the client drops the connection. */
function watched(): { closed: Promise<void>; onClose: (res: ServerResponse) => void } {
  let done!: () => void;
  const closed = new Promise<void>((resolve) => { done = resolve; });
  return { closed, onClose: (res) => res.on('close', done) };
}

const stopLimit = { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-x-1' } as const;

describe('hostile exchange server', () => {
  test('a 307 to another host is refused: status and Location named, the signed headers never reach it, no retry', async () => {
    const other = await server(() => ({ body: {} }));
    const first = await server(() => ({ status: 307, headers: { Location: `${other.url}/api/v4/order/stop-limit` } }));
    const err = (await client(first.url).placeStopLimit(stopLimit).catch((e: unknown) => e)) as TradebotError;
    expect(err).toBeInstanceOf(RedirectRefusedError);
    expect(err.code).toBe('TB_ERR_REDIRECT');
    expect(err.message).toContain('307');
    expect(err.context).toMatchObject({ httpStatus: 307, location: `${other.url}/api/v4/order/stop-limit`, endpoint: 'stopLimit' });
    expect(other.requests).toHaveLength(0);
    expect(JSON.stringify(err)).not.toContain(SECRET);

    // A read is not retried into the redirect either.
    await expect(client(first.url).fetchTradingBalances()).rejects.toBeInstanceOf(RedirectRefusedError);
    expect(first.requests).toHaveLength(2);
    expect(other.requests).toHaveLength(0);
  });

  test('`tradebot api` refuses a redirect too (301 on a public GET, 308 on a signed POST)', async () => {
    const other = await server(() => ({ body: {} }));
    const first = await server((req) => ({ status: req.method === 'GET' ? 301 : 308, headers: { Location: other.url } }));
    const env = { TRADEBOT_API_KEY: 'key-1', TRADEBOT_API_SECRET: SECRET };
    await expect(runApi('GET', '/api/v4/public/markets', { query: [], baseUrl: first.url, timeout: '2000', nonceWindow: false }, env))
      .rejects.toMatchObject({ code: 'TB_ERR_REDIRECT', context: { httpStatus: 301, location: other.url } });
    await expect(runApi('POST', '/api/v4/trade-account/balance', { query: [], baseUrl: first.url, timeout: '2000', nonceWindow: false }, env))
      .rejects.toMatchObject({ code: 'TB_ERR_REDIRECT', context: { httpStatus: 308 } });
    expect(other.requests).toHaveLength(0);
  });

  test('a 200 whose body never ends fails at the deadline, body read included, and the connection is dropped', async () => {
    const w = watched();
    const s = await server(() => ({
      respond: (res) => {
        w.onClose(res);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('[');
        const tick = setInterval(() => res.write('{"a":1},'), 20);
        res.on('close', () => clearInterval(tick));
      },
    }));
    const err = (await client(s.url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }).fetchCandles({ market: 'BTC_USDT' })
      .catch((e: unknown) => e)) as TradebotError;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err.context).toMatchObject({ endpoint: 'kline', timeoutMs: 500 });
    await w.closed;
  });

  test('a slow body (headers at once, the rest after the deadline) is a timeout of the same request', async () => {
    const s = await server(() => ({
      respond: (res) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
        res.write('{"BTC":');
        const late = setTimeout(() => res.end(' '.repeat(93)), 5000);
        res.on('close', () => clearTimeout(late));
      },
    }));
    await expect(client(s.url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }).fetchTradingBalances())
      .rejects.toBeInstanceOf(RequestTimeoutError);
  });

  test('a body declared larger than the cap is refused before reading it; the connection is dropped', async () => {
    const w = watched();
    const s = await server(() => ({
      respond: (res) => {
        w.onClose(res);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(300 * 1024 * 1024) });
        res.write('[');
      },
    }));
    const err = (await client(s.url).fetchMarkets().catch((e: unknown) => e)) as TradebotError;
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.code).toBe('TB_ERR_RESPONSE_TOO_LARGE');
    expect(err.message).toContain('exchange.maxResponseBytes');
    expect(err.context).toMatchObject({ endpoint: 'markets', declaredBytes: 300 * 1024 * 1024, maxResponseBytes: 8 * 1024 * 1024 });
    expect(s.requests).toHaveLength(1); // not retried: the next answer would be as large
    await w.closed;
  });

  test('a chunked body that keeps growing past the cap is cut at the cap', async () => {
    const w = watched();
    let sent = 0;
    const s = await server(() => ({
      respond: (res) => {
        w.onClose(res);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = `[${'"x",'.repeat(4096)}`;
        const pump = (): void => {
          while (!res.destroyed && sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
          if (!res.destroyed && sent < 64 * 1024 * 1024) res.once('drain', pump);
        };
        pump();
      },
    }));
    const err = await client(s.url, { maxResponseBytes: 65_536 }).fetchMarkets().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    await w.closed;
    expect(sent).toBeLessThan(64 * 1024 * 1024); // the server stopped writing: nobody read the rest
  });

  test('garbage JSON ends in BadResponseError with endpoint, path, status and a short excerpt', async () => {
    const s = await server(() => ({ body: '{"BTC": {"available": "1", "freeze"' }));
    const err = (await client(s.url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }).fetchTradingBalances()
      .catch((e: unknown) => e)) as TradebotError;
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.context).toMatchObject({ endpoint: 'tradeBalance', path: '/api/v4/trade-account/balance', httpStatus: 200, reason: 'not JSON' });
    expect(String(err.context['bodyExcerpt'])).toContain('"freeze"');
  });

  test('JSON of the wrong shape (an array where balances go) is BadResponseError naming where', async () => {
    const s = await server(() => ({ body: [1, 2, 3] }));
    const err = (await client(s.url, { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }).fetchTradingBalances()
      .catch((e: unknown) => e)) as TradebotError;
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err.message).toContain('unexpected shape');
  });

  test('a list answer with more rows than the API pages hold (1,441 klines, 101 active orders) is BadResponseError', async () => {
    const row = [1_700_000_000, '1', '1', '1', '1', '1', '1'];
    const order = { orderId: 1, clientOrderId: '', market: 'BTC_USDT', side: 'buy', type: 'stop limit', timestamp: 1, dealMoney: '0', dealStock: '0', amount: '1', takerFee: '0', makerFee: '0', left: '1', dealFee: '0', price: '1', activation_price: '1' };
    const s = await server((req) => (req.url.startsWith('/api/v1/public/kline')
      ? { body: { success: true, message: null, result: new Array(1441).fill(row) } }
      : { body: new Array(101).fill(order) }));
    const one = { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } };
    const kline = (await client(s.url, one).fetchCandles({ market: 'BTC_USDT' }).catch((e: unknown) => e)) as TradebotError;
    expect(kline).toBeInstanceOf(BadResponseError);
    expect(kline.message).toContain('more than 1440 rows');
    const orders = (await client(s.url, one).fetchActiveOrders({ market: 'BTC_USDT' }).catch((e: unknown) => e)) as TradebotError;
    expect(orders).toBeInstanceOf(BadResponseError);
    expect(orders.message).toContain('more than 100 rows');
  });
});

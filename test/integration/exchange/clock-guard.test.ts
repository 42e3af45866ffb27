import { Registry } from 'prom-client';
import { measureExchangeClock, repairPoisonedNonce } from '../../../src/execution/guards/clock-guard';
import { SystemClock } from '../../../src/core/clock';
import { RateLimitedError } from '../../../src/domain/errors';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { createMetrics } from '../../../src/metrics/registry';
import { StoreKeys } from '../../../src/store/keys';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { RedisTestContext } from '../store/redis-test-context';
import { closedPortUrl, startServer, type LoopbackServer, type Reply, type SeenRequest } from './loopback-server';

/**
 * The exchange's clock as a hostile or broken server reports it, over loopback HTTP, with the real
 * Redis nonce allocator: a clock decades ahead or behind is not followed (the stored nonce stays at
 * the local clock), /time unreachable keeps the local clock with a warning, a poisoned stored nonce is
 * repaired with a log line, and a refused nonce re-measures the clock before its one retry.
 */
const YEAR_MS = 365 * 86_400_000;
const ctx = new RedisTestContext();
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await ctx.cleanup();
});

async function server(handler: (req: SeenRequest, i: number) => Reply): Promise<LoopbackServer> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

/** A server whose /time answers `skewMs` off the real clock (whole seconds, as the venue does). */
function timeServer(skewMs: number): Promise<LoopbackServer> {
  return server((req) => (req.url.startsWith('/api/v4/public/time')
    ? { body: { time: Math.floor((Date.now() + skewMs) / 1000) } }
    : { body: { BTC: { available: '1', freeze: '0' } } }));
}

function harness(baseUrl: string, nonces: RedisNonceSource | InMemoryNonceSource, resyncClock?: () => Promise<void>) {
  const clock = new SystemClock();
  const exchange = new HttpExchangeClient({
    baseUrl, primaryRegion: 'global', credentials: { apiKey: 'clock-key', apiSecret: 'clock-secret' },
    nonceSource: nonces, limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, ...(resyncClock === undefined ? {} : { resyncClock }),
  });
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, msg, obj });
  const log = { info: at('info'), warn: at('warn'), error: at('error') } as never;
  const metrics = createMetrics(new Registry());
  return { exchange, lines, log, metrics, clock };
}

describe('clock and nonce guard', () => {
  test.each([
    ['30 years ahead', 30 * YEAR_MS],
    ['30 years behind', -30 * YEAR_MS],
    ['2 minutes ahead', 120_000],
  ])('a server clock %s is not followed: nonces and Redis stay on the local clock, trading is to be refused', async (_name, skew) => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const nonces = new RedisNonceSource({ redis, prefix });
    const s = await timeServer(skew);
    const h = harness(s.url, nonces);
    const sync = await measureExchangeClock({ exchange: h.exchange, wallClock: h.clock, nonces, metrics: h.metrics, log: h.log });
    expect(sync.status).toBe('too_far');
    expect(h.lines.find((l) => l.level === 'error')?.msg).toMatch(/off the local clock \(limit 60 s\): not followed, nonces use the local clock, trading refused/);
    expect((await h.metrics.clockOffset.get()).values[0]?.value).toBeCloseTo(skew / 1000, -1);

    const before = Date.now();
    await h.exchange.fetchTradingBalances();
    const stored = Number(await redis.get(StoreKeys.forApiKey('clock-key', prefix).nonce()));
    expect(stored).toBeGreaterThanOrEqual(before);
    expect(stored).toBeLessThanOrEqual(Date.now() + 4000);
    const sent = JSON.parse(s.requests.at(-1)!.body) as { nonce: string };
    expect(Number(sent.nonce)).toBe(stored);
  });

  test('a server 3 s ahead is followed', async () => {
    const nonces = new InMemoryNonceSource();
    const h = harness((await timeServer(3000)).url, nonces);
    const sync = await measureExchangeClock({ exchange: h.exchange, wallClock: h.clock, nonces, metrics: h.metrics, log: h.log });
    expect(sync.status).toBe('ok');
    expect(sync.status === 'ok' && Math.abs(sync.offsetMs - 3000)).toBeLessThan(1500); // whole seconds on the wire
    expect(h.lines.map((l) => l.msg)).toEqual(['clock offset measured']);
  });

  test('/time unreachable: a warning, the local clock, and signing goes on', async () => {
    const nonces = new InMemoryNonceSource();
    const h = harness(await closedPortUrl(), nonces);
    const sync = await measureExchangeClock({ exchange: h.exchange, wallClock: h.clock, nonces, metrics: h.metrics, log: h.log });
    expect(sync.status).toBe('unreachable');
    expect(h.lines).toEqual([expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/server time unreachable: nonces use the local clock/) })]);
    const before = Date.now();
    const nonce = await nonces.nextNonce('clock-key');
    expect(nonce).toBeGreaterThanOrEqual(before);
    expect(nonce).toBeLessThanOrEqual(Date.now());
  });

  test('a poisoned nonce in Redis is repaired at start-up with a clear log line; the next signed call is accepted', async () => {
    const redis = await ctx.client();
    const prefix = ctx.prefix();
    const key = StoreKeys.forApiKey('clock-key', prefix).nonce();
    await redis.set(key, String(Date.now() + 30 * YEAR_MS), 'PX', 86_400_000);
    const nonces = new RedisNonceSource({ redis, prefix });
    const s = await timeServer(0);
    const h = harness(s.url, nonces);
    expect(await repairPoisonedNonce(nonces, 'clock-key', h.log)).toBe(true);
    expect(h.lines[0]?.msg).toMatch(/stored nonce was far in the future \(poisoned by a wrong server clock\): reset to the current time/);
    expect(Number(await redis.get(key))).toBeLessThanOrEqual(Date.now());
    expect(await repairPoisonedNonce(nonces, 'clock-key', h.log)).toBe(false);
    expect(h.lines).toHaveLength(1);
  });

  test('a refused nonce re-measures the clock, then the write is sent once more (and only once)', async () => {
    let resyncs = 0;
    const s = await server((req, i) => (i === 0
      ? { status: 429, body: { code: 0, message: 'Your nonce is more than 5 seconds lesser than the current nonce.', errors: {} } }
      : { body: { orderId: 1, clientOrderId: 'tb-c-1', market: 'BTC_USDT', side: 'buy', type: 'stop limit', timestamp: 1, dealMoney: '0', dealStock: '0', amount: '0.001', takerFee: '0.001', makerFee: '0.001', left: '0.001', dealFee: '0', price: '40000', activation_price: '41000', status: 'NEW' } }));
    const h = harness(s.url, new InMemoryNonceSource(), async () => void resyncs++);
    await h.exchange.placeStopLimit({ market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-c-1' })
      .catch(() => undefined); // the answer's shape is not the point here
    expect(resyncs).toBe(1);
    expect(s.requests).toHaveLength(2);
    const [a, b] = s.requests.map((r) => JSON.parse(r.body) as { nonce: string; clientOrderId: string });
    expect(Number(b!.nonce)).toBeGreaterThan(Number(a!.nonce));
    expect(b!.clientOrderId).toBe(a!.clientOrderId);

    // Refused twice: one resync, then the refusal is the caller's (a write is never sent a third time).
    const always = await server(() => ({ status: 429, body: { code: 0, message: 'Too many requests.', errors: {} } }));
    resyncs = 0;
    const h2 = harness(always.url, new InMemoryNonceSource(), async () => void resyncs++);
    await expect(h2.exchange.placeStopLimit({ market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-c-2' }))
      .rejects.toBeInstanceOf(RateLimitedError);
    expect(resyncs).toBe(1);
    expect(always.requests).toHaveLength(2);
  });
});

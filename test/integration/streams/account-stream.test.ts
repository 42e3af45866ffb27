import { Registry } from 'prom-client';
import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { parseConfig } from '../../../src/config/load';
import { startAccountStream, type AccountStream } from '../../../src/app/stream-wiring';
import { settleBeforeCandle } from '../../../src/execution/kernel/candle-settlement';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, API_SECRET, MARKET, replica, startSim, stopLimit, T0, until, type Replica } from '../execution/harness';

/**
 * The account stream over a real socket to the simulator's WebSocket twin, into a real Redis journal:
 * fills arrive without REST, duplicates change nothing, a silent stream hands over to REST, a dropped
 * connection resyncs and misses nothing. REST requests are counted by endpoint at the client.
 */

const STALE_MS = 800;
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;
let stream: AccountStream | undefined;
let metrics: Metrics;
let requests: string[];

function client(url: string): HttpExchangeClient {
  const clock = new SystemClock();
  return new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
    onRequest: (e) => requests.push(e.endpoint),
  });
}

const config = parseConfig({
  mode: 'paper',
  paper: { exchangeUrl: 'http://127.0.0.1:1' },
  strategies: { enabled: [{ name: 'alpha', markets: [MARKET], interval: '1m' }] },
  exchange: { websocket: { staleAfterMs: STALE_MS, pongTimeoutMs: 500, pingIntervalMs: 5000, backoffMinMs: 50, backoffMaxMs: 200 } },
}, {});

async function begin(): Promise<AccountStream> {
  const exchange = client(sim.url);
  r = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: exchange, owner: 'stream-a', scopes: [['alpha', MARKET]] });
  await r.execution.reconciler.runOnce();
  metrics = createMetrics(new Registry(), { defaultMetrics: false });
  stream = startAccountStream({
    config, url: sim.wsUrl, exchange, metrics, log: createLogger({ level: 'silent', pretty: false }),
    markets: [MARKET], exec: r.execution, store: r.store, events: r.events, onChange: () => undefined,
  });
  await until(() => stream!.isHealthy());
  return stream;
}

/** The REST endpoints that learn order outcomes (settlement, reconciliation). */
const ORDER_QUERIES = /order|history|deal|oco/i;

beforeEach(async () => {
  requests = [];
  sim = await startSim();
});

afterEach(async () => {
  stream?.stop();
  stream = undefined;
  r.execution.reconciler.stop();
  await sim.close();
  await ctx.cleanup();
});

async function placeStop(): Promise<string> {
  const result = await r.execution.executor.submit(stopLimit('alpha', T0));
  expect(result.outcome).toBe('accepted');
  return (result as { records: readonly { clientOrderId: string }[] }).records[0]!.clientOrderId;
}

test('a fill reaches the journal from the stream, without any REST request', async () => {
  const s = await begin();
  const cid = await placeStop();
  await until(async () => (await r.store.get(cid))?.status === 'open');
  requests = [];
  sim.advanceTo(T0 + 120); // the second candle reaches 106: the stop triggers and fills
  await until(async () => (await r.store.get(cid))?.status === 'filled');
  await s.idle();
  expect(requests).toEqual([]);
  expect(await r.store.get(cid)).toMatchObject({ status: 'filled', filledAmount: '0.1' });
  expect(r.events.ofType('OrderTriggered')).toHaveLength(1);
  expect(r.events.ofType('OrderFilled')).toHaveLength(1);
  expect(s.takeChanged(MARKET)).toBe(true);
});

test('every push sent twice changes nothing: one trigger, one fill, the same journal history', async () => {
  const s = await begin();
  sim.wsFaults.configure({ duplicatePushes: true });
  const cid = await placeStop();
  requests = [];
  sim.advanceTo(T0 + 120);
  await until(async () => (await r.store.get(cid))?.status === 'filled');
  await new Promise((resolve) => setTimeout(resolve, 700)); // the deal check's grace: it must not ask either
  await s.idle();
  const record = (await r.store.get(cid))!;
  expect(record.history.map((h) => `${h.from ?? '-'}>${h.to}`)).toEqual(['pending>submitted', 'submitted>open', 'open>triggered', 'triggered>filled']);
  expect(record.filledAmount).toBe('0.1');
  expect(r.events.ofType('OrderFilled')).toHaveLength(1);
  expect(r.events.ofType('OrderTriggered')).toHaveLength(1);
  expect(requests).toEqual([]);
});

test('a silent stream is found stale within the watchdog time; REST settles meanwhile; the stream comes back', async () => {
  const s = await begin();
  const cid = await placeStop();
  const silentAt = Date.now();
  sim.wsFaults.configure({ silent: true });
  await until(() => !s.isHealthy(), 400, 10);
  // The watchdog checks every quarter of the stale time: a bound of twice it leaves room for a loaded machine.
  expect(Date.now() - silentAt).toBeLessThan(2 * STALE_MS + 500);
  expect(await metrics.streamStaleFallbacks.get()).toMatchObject({ values: [{ value: 1, labels: { stream: 'account' } }] });

  // What the daemon does before each candle: the stream is not trusted now, REST is asked.
  sim.advanceTo(T0 + 120);
  requests = [];
  const before = settleBeforeCandle({
    reconciler: r.execution.reconciler, book: { refresh: async () => undefined }, feedback: { idle: async () => undefined },
    pollBalances: async () => undefined, stream: s,
  });
  await before(MARKET);
  expect(requests.some((e) => ORDER_QUERIES.test(e))).toBe(true);
  expect(await r.store.get(cid)).toMatchObject({ status: 'filled' });

  sim.wsFaults.configure({ silent: false });
  await until(() => s.isHealthy());
  expect(r.events.ofType('OrderFilled')).toHaveLength(1);
});

test('a dropped connection resyncs: fills made while disconnected are in the journal afterwards', async () => {
  const s = await begin();
  const a = await placeStop();
  const b = (await r.execution.executor.submit(stopLimit('alpha', T0 - 60, { price: new Decimal('105.6') })) as { records: readonly { clientOrderId: string }[] }).records[0]!.clientOrderId;
  const resyncsBefore = (await metrics.streamResyncs.get()).values[0]?.value ?? 0;
  expect(sim.wsFaults.dropAll()).toBeGreaterThan(0);
  sim.advanceTo(T0 + 120); // both fill while no connection is open: nothing is pushed to us
  await until(async () => (await metrics.streamResyncs.get()).values[0]!.value > resyncsBefore);
  await until(() => s.isHealthy());
  expect(await r.store.get(a)).toMatchObject({ status: 'filled', filledAmount: '0.1' });
  expect(await r.store.get(b)).toMatchObject({ status: 'filled', filledAmount: '0.1' });
  expect(r.events.ofType('OrderFilled')).toHaveLength(2);
});

test('the token is fetched once per connection and never appears in metrics', async () => {
  const s = await begin();
  const tokens = requests.filter((e) => e === 'websocketToken').length;
  expect(tokens).toBe(1);
  sim.wsFaults.dropAll();
  await until(() => !s.isHealthy(), 200, 5).catch(() => undefined);
  await until(() => s.isHealthy());
  expect(requests.filter((e) => e === 'websocketToken').length).toBe(2);
  const text = await (metrics.streamConnected as unknown as { get(): Promise<unknown> }).get();
  expect(JSON.stringify(text)).not.toMatch(/sim-ws-/);
});

import { Writable } from 'node:stream';
import { DaemonEventBus } from '../../../src/domain/daemon-event';
import { Registry } from 'prom-client';
import { memoryAdapters, type StateAdapters } from '../../../src/app/state-wiring';
import { wireTrading, type Trading } from '../../../src/app/trading-wiring';
import { parseConfig } from '../../../src/config/load';
import { ManualClock, SystemClock, type MarketClock } from '../../../src/core/clock';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import type { SimulatedExchange, SimulatedExchangeOptions } from '../../../src/simulator/start-simulated-exchange';
import { StoreKeys } from '../../../src/store/keys';
import { API_KEY, API_SECRET, MARKET, oco, startSim, stopLimit, T0 } from '../execution/harness';

/**
 * The daemon's trading wiring (src/app/trading-wiring.ts) against a real simulator, for the two
 * faults after which no order should follow: the venue ignoring our client order id (the echo guard;
 * the simulator speaks the other dialect and ignores unknown fields as the live venue does), the
 * venue refusing the order type with HTTP 453 (its EU region), and a lost OCO answer whose order
 * cannot be told apart from another at the venue (the venue's OCO legs carry no client id). Each halts trading (stored, so a
 * restart stays halted) and logs an error saying what happened and what to check.
 */
let sim: SimulatedExchange;
afterEach(async () => sim?.close());

interface Daemon {
  readonly trading: Trading;
  readonly state: StateAdapters;
  readonly metrics: Metrics;
  readonly lines: Record<string, unknown>[];
}

async function daemonAgainst(simOptions: SimulatedExchangeOptions, marketClock: MarketClock = new SystemClock()): Promise<Daemon> {
  sim = await startSim(simOptions);
  const config = parseConfig({
    mode: 'paper', exchange: { dialect: 'venue' }, paper: { markets: [{ market: MARKET, data: 'unused.csv' }], balances: { USDT: '100' } },
    strategies: { enabled: [{ name: 'sma-cross', markets: [MARKET] }] },
  }, {});
  const clock = new SystemClock();
  const state = memoryAdapters(StoreKeys.forApiKey(API_KEY, 'halts'), clock, 1);
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', destination: new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }) });
  const metrics = createMetrics(new Registry(), { defaultMetrics: false });
  const exchange = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET }, dialect: config.exchange.dialect,
    nonceSource: state.nonces, limiter: state.limiter, clock, timeoutMs: 2000,
  });
  const ctx = { config, baseDir: '.', env: {}, configFile: undefined, log, metrics, wallClock: clock, marketNow: marketClock, onRedisUp: () => undefined, closers: [], schedulers: [], fail: (e: Error) => { throw e; }, events: new DaemonEventBus() };
  const trading = await wireTrading(ctx, { exchange, state, marketClock }, [{ name: 'alpha', markets: [MARKET] }], () => undefined);
  expect(trading.riskEngine.tradingState).toBe('active');
  trading.exec.leases.want('alpha', MARKET);
  await trading.exec.leases.tick();
  trading.exec.readiness.markReconciled();
  await trading.balances.poll();
  await trading.collateral.poll();
  return { trading, state, metrics, lines };
}

test('an ignored client order id: order canceled, trading halted and stored, counted, logged with exchange.dialect', async () => {
  const d = await daemonAgainst({ dialect: 'spec', unknownFields: 'ignore' });
  const result = await d.trading.exec.executor.submit(stopLimit('alpha', T0));
  expect(result.outcome).toBe('rejected');
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(sim.engine.orderHistory(API_KEY)[0]).toMatchObject({ status: 'CANCELED', clientOrderId: '' });

  expect(d.trading.riskEngine.tradingState).toBe('halted');
  expect(await d.state.tradingState.read()).toMatchObject({ state: 'halted', reason: expect.stringContaining('exchange.dialect') });
  expect((await d.metrics.clientOrderIdIgnored.get()).values[0]?.value).toBe(1);
  const error = d.lines.find((l) => l['level'] === 'error');
  expect(error?.['msg']).toMatch(/client order id ignored by the exchange: trading halted/);
  expect(error?.['msg']).toMatch(/canceled by its exchange id/);
  expect(error?.['msg']).toMatch(/Check exchange.dialect \(now "venue"\)/);

  // Halted: the next intent is denied before anything is sent.
  const next = await d.trading.exec.executor.submit(stopLimit('alpha', T0 + 60));
  expect(next.outcome).toBe('denied');
  expect(sim.engine.orderHistory(API_KEY)).toHaveLength(1);
});

test.each([
  ['stop-limit', () => stopLimit('alpha', T0)],
  ['OCO', () => oco('alpha', T0)],
])('a region that refuses the order type (HTTP 453, the EU): %s rejected, trading halted and stored, a clear error', async (kind, intent) => {
  const d = await daemonAgainst({ region: 'eu' });
  const result = await d.trading.exec.executor.submit(intent());
  expect(result.outcome).toBe('rejected');
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
  expect(d.trading.riskEngine.tradingState).toBe('halted');
  expect(await d.state.tradingState.read()).toMatchObject({ state: 'halted', reason: expect.stringContaining('HTTP 453') });
  const error = d.lines.find((l) => l['level'] === 'error');
  expect(error?.['msg']).toContain(`the exchange does not offer ${kind} orders here (HTTP 453 "This order type is not available"): trading halted`);
  expect(error?.['msg']).toContain('EU region');
  expect(error?.['msg']).toContain('exchange.baseUrl');
  expect((await d.metrics.clientOrderIdIgnored.get()).values[0]?.value).toBe(0);
  const next = await d.trading.exec.executor.submit(stopLimit('alpha', T0 + 60));
  expect(next.outcome).toBe('denied');
});

test('a lost OCO answer matching two venue OCOs: nothing guessed, trading halted and stored, counted, logged with the candidates', async () => {
  // Started at the venue's T0: the intent's candle closes after the start (no look before sending).
  const d = await daemonAgainst({ collateralBalances: { USDT: '100000' } }, new ManualClock(T0 * 1000));
  const intent = oco('alpha', T0);
  const sent = intent.intent.kind === 'oco' ? intent.intent : undefined;
  // The same OCO placed by hand just before: the fingerprint cannot tell the two apart.
  sim.engine.placeOco(API_KEY, {
    market: MARKET, side: sent!.side, amount: sent!.amount, price: sent!.price, activationPrice: sent!.activationPrice, stopLimitPrice: sent!.stopLimitPrice,
  });
  sim.faults.configure({ seed: 5, lostAnswerRate: 1, endpoints: ['collateralOco'] });
  const result = await d.trading.exec.executor.submit(intent);
  expect(result.outcome).toBe('unknown');
  expect(d.trading.riskEngine.tradingState).toBe('halted');
  expect(await d.state.tradingState.read()).toMatchObject({ state: 'halted', reason: expect.stringContaining('order identity ambiguous') });
  expect((await d.metrics.orderIdentityAmbiguous.get()).values[0]?.value).toBeGreaterThanOrEqual(1);
  const error = d.lines.find((l) => l['level'] === 'error');
  expect(error?.['msg']).toMatch(/cannot tell which venue order is ours: trading halted\. .*matches 2 order\(s\) at the venue/);
  expect(error?.['msg']).toContain('Order identity on the venue');
  sim.faults.reset();
  expect((await d.trading.exec.executor.submit(stopLimit('alpha', T0 + 60))).outcome).toBe('denied');
});

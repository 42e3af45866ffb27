import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { memoryAdapters } from '../../../src/app/stores';
import { wireTrading } from '../../../src/app/trading-wiring';
import { parseConfig } from '../../../src/config/load';
import { SystemClock } from '../../../src/core/clock';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { createLogger } from '../../../src/log/logger';
import { createMetrics } from '../../../src/metrics/registry';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { StoreKeys } from '../../../src/store/keys';
import { API_KEY, API_SECRET, MARKET, startSim, stopLimit, T0 } from '../execution/harness';

/**
 * The daemon's trading wiring (src/app/trading-wiring.ts) around the echo guard, against a real
 * simulator speaking the other dialect and ignoring unknown fields as the live venue does: one order
 * the venue took without our client id halts trading (stored, so a restart stays halted), counts
 * tradebot_client_order_id_ignored_total and logs an error that says what happened and what to check.
 */
let sim: SimulatedExchange;
afterEach(async () => sim?.close());

test('an ignored client order id: order canceled, trading halted and stored, counted, logged with exchange.dialect', async () => {
  sim = await startSim({ dialect: 'spec', unknownFields: 'ignore' });
  const config = parseConfig({
    mode: 'paper', exchange: { dialect: 'venue' }, paper: { markets: [{ market: MARKET, data: 'unused.csv' }], balances: { USDT: '100' } },
    strategies: { enabled: [{ name: 'sma-cross', markets: [MARKET] }] },
  }, {});
  const clock = new SystemClock();
  const state = memoryAdapters(StoreKeys.forApiKey(API_KEY, 'echo'), clock, 1);
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level: 'info', destination: new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } }) });
  const registry = new Registry();
  const metrics = createMetrics(registry, { defaultMetrics: false });
  const exchange = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET }, dialect: config.exchange.dialect,
    nonceSource: state.nonces, limiter: state.limiter, clock, timeoutMs: 2000,
  });
  const trading = await wireTrading({
    config, exchange, state, markets: [MARKET], strategies: [{ name: 'alpha', markets: [MARKET] }], marketClock: clock, wallClock: clock,
    metrics, log, lastPrice: () => undefined, onRedisUp: () => undefined,
  });
  expect(trading.riskEngine.tradingState).toBe('active');
  trading.exec.leases.want('alpha', MARKET);
  await trading.exec.leases.tick();
  trading.exec.readiness.markReconciled();
  await trading.balances.poll();

  const result = await trading.exec.executor.submit(stopLimit('alpha', T0));
  expect(result.outcome).toBe('rejected');
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
  expect(sim.engine.orderHistory(API_KEY)[0]).toMatchObject({ status: 'CANCELED', clientOrderId: '' });

  expect(trading.riskEngine.tradingState).toBe('halted');
  expect(await state.tradingState.read()).toMatchObject({ state: 'halted', reason: expect.stringContaining('exchange.dialect') });
  expect((await metrics.clientOrderIdIgnored.get()).values[0]?.value).toBe(1);
  const error = lines.find((l) => l['level'] === 'error');
  expect(error?.['msg']).toMatch(/client order id ignored by the exchange: trading halted/);
  expect(error?.['msg']).toMatch(/canceled by its exchange id/);
  expect(error?.['msg']).toMatch(/Check exchange.dialect \(now "venue"\)/);

  // Halted: the next intent is denied before anything is sent.
  const next = await trading.exec.executor.submit(stopLimit('alpha', T0 + 60));
  expect(next.outcome).toBe('denied');
  expect(sim.engine.orderHistory(API_KEY)).toHaveLength(1);
});

import { Registry } from 'prom-client';
import { SystemClock } from '../../../src/core/clock';
import { parseConfig } from '../../../src/config/load';
import { startMarketStreams, type MarketStreams } from '../../../src/app/stream-wiring';
import type { Candle, Interval } from '../../../src/domain/candle';
import type { MarketName } from '../../../src/domain/market';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { createLogger } from '../../../src/log/logger';
import { createJobScheduler, type JobScheduler } from '../../../src/jobs/scheduler';
import { createMetrics } from '../../../src/metrics/registry';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { CandleFlow } from '../../../src/strategy/candle-flow';
import type { CandleHost } from '../../../src/strategy/guest/guest-host';
import { until } from '../execution/harness';

/**
 * The market stream over a real socket: a rollover in `candles_update` makes the daemon fetch the
 * closed candle over REST at once, long before the fixed-offset poll (here 40 market seconds after
 * the close), and that poll then costs no request. The last price arrives for the risk band.
 */
jest.setTimeout(60_000);
const KLINE_DELAY_MS = 40_000;
let sim: SimulatedExchange;
let streams: MarketStreams | undefined;
let scheduler: JobScheduler | undefined;

afterEach(async () => {
  streams?.stop();
  await scheduler?.stop(1000);
  await sim.close();
});

test('a candle rollover triggers its kline fetch at once; the scheduled poll then sends nothing', async () => {
  const start = Math.floor(Date.now() / 60_000) * 60 - 3600;
  sim = await startSimulatedExchange({
    apiKey: 'm-key', apiSecret: 'm-secret', balances: { USDT: '1000' }, markets: [{ name: 'BTC_USDT' }], start, speed: 30, rateLimits: false,
    ws: { tickIntervals: { candlesMs: 50, lastpriceMs: 50 } },
  });
  const wall = new SystemClock();
  const klines: number[] = [];
  const client = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'm-key', apiSecret: 'm-secret' },
    nonceSource: new InMemoryNonceSource({ clock: wall }), limiter: new InMemoryRateLimiter({ clock: wall }), clock: wall, timeoutMs: 5000,
    onRequest: (e) => { if (e.endpoint === 'kline') klines.push(sim.clock.nowMs()); },
  });
  const delivered: { time: number; atMarketMs: number }[] = [];
  const host: CandleHost = {
    subscriptions: () => [{ market: 'BTC_USDT', interval: '1m' }],
    handleCandle: (_m: MarketName, _i: Interval, candle: Candle) => {
      delivered.push({ time: candle.time, atMarketMs: sim.clock.nowMs() });
      return [];
    },
    pause: () => undefined, resume: () => undefined, isPaused: () => false, stats: () => ({}) as never, strategyNames: () => [],
  };
  const log = createLogger({ level: 'silent', pretty: false });
  const flow = new CandleFlow({
    host, client, clock: sim.clock, log, klineDelayMs: KLINE_DELAY_MS, warmupFor: () => 1, sink: { submit: async () => undefined },
    streamTriggers: (mk, iv) => streams?.triggers(mk, iv) === true,
  });
  await flow.warmUp();
  const warm = delivered.length;
  const config = parseConfig({
    mode: 'paper', paper: { exchangeUrl: sim.url }, strategies: { enabled: [{ name: 'x' }] },
    exchange: { websocket: { staleAfterMs: 2000, klineCacheMs: 1000 } },
  }, {});
  streams = startMarketStreams({
    config, url: sim.wsUrl, exchange: client, metrics: createMetrics(new Registry(), { defaultMetrics: false }), log,
    subscriptions: flow.subscriptions(), marketClock: sim.clock, onClosed: (mk, iv, t) => { void flow.closed(mk, iv, t); },
  });
  scheduler = createJobScheduler({ clock: sim.clock, log });
  for (const job of flow.jobs()) scheduler.add(job);
  scheduler.start();
  await until(() => streams!.triggers('BTC_USDT', '1m'));
  const klinesBefore = klines.length;
  await until(() => delivered.length >= warm + 3, 600, 50);
  const live = delivered.slice(warm);
  for (const d of live) {
    // Delivered after the kline cache bound, well before the fixed offset: the stream triggered it.
    const sinceClose = d.atMarketMs - (d.time + 60) * 1000;
    expect(sinceClose).toBeGreaterThanOrEqual(1000);
    expect(sinceClose).toBeLessThan(KLINE_DELAY_MS);
  }
  // One kline request per closed candle (the trigger's); the scheduled polls found it delivered.
  await until(() => sim.clock.nowMs() > (live[2]!.time + 60) * 1000 + KLINE_DELAY_MS + 5000, 600, 50);
  expect(klines.length - klinesBefore).toBeLessThanOrEqual(live.length + 1);
  expect(streams.lastPrice('BTC_USDT')?.greaterThan(0)).toBe(true);
});

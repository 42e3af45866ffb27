import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { SystemClock } from '../src/core/clock';
import { parseConfig } from '../src/config/load';
import type { Candle, Interval } from '../src/domain/candle';
import { Decimal } from '../src/domain/decimal';
import type { MarketName } from '../src/domain/market';
import { HttpExchangeClient } from '../src/exchange/http/client';
import { InMemoryNonceSource } from '../src/exchange/nonce/in-memory-nonce-source';
import { buildExecution } from '../src/execution/kernel/build-execution';
import { settleBeforeCandle } from '../src/execution/kernel/candle-settlement';
import type { ExecutionEvent } from '../src/execution/journal/events';
import { LeaseKeeper } from '../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../src/execution/orders/risk-port';
import { InMemoryRateLimiter } from '../src/limiter/in-memory-limiter';
import { createLogger } from '../src/log/logger';
import { createJobScheduler, type JobScheduler } from '../src/jobs/scheduler';
import { createMetrics } from '../src/metrics/registry';
import { startSimulatedExchange, type SimulatedExchange } from '../src/simulator/start-simulated-exchange';
import { InMemoryLeaseStore } from '../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../src/store/memory/in-memory-order-store';
import { CandleFlow } from '../src/strategy/candle-flow';
import type { CandleHost } from '../src/strategy/guest/guest-host';
import type { StampedIntent } from '../src/strategy/intent-validation';
import { startAccountStream, startMarketStreams, type AccountStream, type MarketStreams } from '../src/app/stream-wiring';
import type { BenchRow } from './bench-types';

/**
 * Streams against polling, in the same run, against one simulator at speed 1 (real time: the
 * simulator pushes candles every 0.5 s of WALL time, as the venue does, so a faster clock would
 * distort the comparison). Two daemons' worth of the real path (CandleFlow -> settlement before the
 * candle -> Executor -> HTTP to the simulator), one per mode, each with its own account, trade
 * 20 markets side by side (1m candles; every closed candle places one buy stop-limit a little above
 * the close, so some fill later):
 * - close -> accepted: from the candle's close on the market clock to the create answer journaled;
 * - fill -> journal: from the simulator's fill (engine event) to the journal showing the order filled;
 * - REST requests per hour for the 20 markets (every HTTP request of that mode, scaled to an hour).
 * Polling = the daemon with `exchange.streams: off` and the default timings (klines 1.5 s after the
 * close, reconciliation every 30 s, settlement before each candle); streams = `all` (defaults).
 *
 * It runs for BENCH_STREAMS_MINUTES minutes of real time (default 4: about 3 closes x 20 markets per
 * mode). Run: `npm run build && node dist/bench/run.js streams`.
 */
const MARKETS: readonly MarketName[] = Array.from({ length: 20 }, (_, i) => `S${i}_USDT`);
const INTERVAL: Interval = '1m';
const MINUTES = Number(process.env['BENCH_STREAMS_MINUTES'] ?? 4);
const KLINE_DELAY_MS = 1500;
const RECONCILE_MS = 30_000;

type Mode = 'polling' | 'streams';

interface Lane {
  readonly mode: Mode;
  readonly requests: { count: number };
  readonly closeToAccepted: number[];
  readonly fillToJournal: number[];
  readonly outcomes: Map<string, number>;
  stop(): Promise<void>;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Wall ms since the market clock passed `marketMs` (speed 1: market ms are wall ms). */
const sinceMarket = (sim: SimulatedExchange, marketMs: number): number => (sim.clock.nowMs() - marketMs) / sim.clock.speed;

async function lane(mode: Mode, sim: SimulatedExchange, apiKey: string, filledAt: Map<number, number>): Promise<Lane> {
  const wall = new SystemClock();
  const requests = { count: 0 };
  const closeToAccepted: number[] = [];
  const fillToJournal: number[] = [];
  const outcomes = new Map<string, number>();
  const client = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey, apiSecret: `${apiKey}-secret` },
    nonceSource: new InMemoryNonceSource({ clock: wall }), limiter: new InMemoryRateLimiter({ clock: wall }), clock: wall, timeoutMs: 10_000,
    onRequest: () => { requests.count += 1; },
  });
  const leaseStore = new InMemoryLeaseStore(wall);
  const store = new InMemoryOrderStore(leaseStore, wall);
  const leases = new LeaseKeeper({ store: leaseStore, owner: `bench-${mode}`, ttlMs: 60_000 });
  for (const m of MARKETS) leases.want('bench', m);
  await leases.tick();
  const events = {
    emit(e: ExecutionEvent): void {
      if (e.type !== 'OrderFilled') return;
      void store.get(e.clientOrderId).then((r) => {
        const at = r?.orderId === undefined ? undefined : filledAt.get(r.orderId);
        if (at !== undefined) fillToJournal.push(performance.now() - at);
      });
    },
  };
  const exec = buildExecution({
    exchange: client, store, leases, leaseStore, owner: `bench-${mode}`, risk: ALLOW_ALL, clock: wall, events,
    markets: MARKETS, requestTimeoutMs: 10_000,
  });
  await exec.catalog.refresh();
  await exec.reconciler.runOnce();
  const config = parseConfig({
    mode: 'paper', paper: { exchangeUrl: sim.url }, strategies: { enabled: [{ name: 'bench' }] },
    exchange: { streams: mode === 'streams' ? 'all' : 'off' },
  }, {});
  const metrics = createMetrics(new Registry(), { defaultMetrics: false });
  const log = createLogger({ level: 'silent', pretty: false });
  let account: AccountStream | undefined;
  let market: MarketStreams | undefined;
  if (mode === 'streams') {
    account = startAccountStream({
      config, url: sim.wsUrl, exchange: client, metrics, log, markets: MARKETS, exec, store, events, onChange: () => undefined,
    });
  }
  const host: CandleHost = {
    subscriptions: () => MARKETS.map((m) => ({ market: m, interval: INTERVAL })),
    handleCandle: (mk: MarketName, _iv: Interval, candle: Candle): StampedIntent[] => [{
      strategy: 'bench', interval: INTERVAL, candleTime: candle.time,
      intent: { kind: 'stop_limit', market: mk, side: 'buy', amount: new Decimal('0.1'), activationPrice: candle.close.times('1.0005'), price: candle.close.times('1.002') },
    }],
    pause: () => undefined, resume: () => undefined, isPaused: () => false,
    stats: () => ({ calls: 0, errors: 0, overruns: 0, consecutiveFailures: 0 }) as never, strategyNames: () => ['bench'],
  };
  const flow = new CandleFlow({
    host, client, clock: sim.clock, log, klineDelayMs: KLINE_DELAY_MS, warmupFor: () => 1,
    sink: {
      submit: async (intents) => {
        for (const x of intents) {
          const closeMs = (x.candleTime + 60) * 1000;
          const result = await exec.executor.submit(x);
          const key = result.outcome === 'denied' ? `denied:${result.rule}` : result.outcome;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
          if (result.outcome === 'accepted') closeToAccepted.push(sinceMarket(sim, closeMs));
        }
      },
    },
    beforeStrategies: settleBeforeCandle({
      reconciler: exec.reconciler, book: { refresh: async () => undefined }, feedback: { idle: async () => undefined },
      pollBalances: async () => undefined, stream: account,
    }),
    ...(mode === 'streams' ? { streamTriggers: (mk: MarketName, iv: Interval) => market?.triggers(mk, iv) === true } : {}),
  });
  await flow.warmUp();
  const scheduler: JobScheduler = createJobScheduler({ clock: sim.clock, log });
  for (const job of flow.jobs()) scheduler.add(job);
  scheduler.start();
  if (mode === 'streams') {
    market = startMarketStreams({
      config, url: sim.wsUrl, exchange: client, metrics, log, subscriptions: flow.subscriptions(), marketClock: sim.clock,
      onClosed: (mk, iv, t) => { void flow.closed(mk, iv, t); },
    });
  }
  const renew = setInterval(() => { void leases.tick().catch(() => undefined); }, 5000);
  const reconcile = setInterval(() => {
    if (account?.reconcileNow() === false) return;
    void exec.reconciler.runOnce().catch(() => undefined);
  }, RECONCILE_MS);
  return {
    mode, requests, closeToAccepted, fillToJournal, outcomes,
    stop: async () => {
      clearInterval(reconcile);
      clearInterval(renew);
      await scheduler.stop(2000);
      account?.stop();
      market?.stop();
      exec.reconciler.stop();
    },
  };
}

export async function run(): Promise<BenchRow[]> {
  const accounts = (['polling', 'streams'] as const).map((mode) => ({
    apiKey: `bench-${mode}`, apiSecret: `bench-${mode}-secret`, funding: { trading: { USDT: '100000000' } },
  }));
  const start = Math.floor(Date.now() / 60_000) * 60; // minute-aligned market clock at speed 1
  const sim = await startSimulatedExchange({
    accounts, markets: MARKETS.map((name) => ({ name })), start, speed: 1, seed: 11, rateLimits: false,
  });
  // The fill instant per order id (an engine event, in this process): the start of fill -> journal.
  const filledAt = new Map<number, number>();
  sim.engine.onEvent((e) => { if (e.type === 'filled' && e.order.left.isZero()) filledAt.set(e.order.id, performance.now()); });
  const lanes = [await lane('polling', sim, 'bench-polling', filledAt), await lane('streams', sim, 'bench-streams', filledAt)];
  const counted = lanes.map((l) => l.requests.count);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, MINUTES * 60_000));
  const hours = (performance.now() - t0) / 3_600_000;
  for (const l of lanes) await l.stop();
  await sim.close();
  const rows: BenchRow[] = [];
  lanes.forEach((l, i) => {
    const c2a = [...l.closeToAccepted].sort((a, b) => a - b);
    const f2j = [...l.fillToJournal].sort((a, b) => a - b);
    const note = `20 markets, ${MINUTES} min at speed 1; n=${c2a.length} orders, ${f2j.length} fills; outcomes ${JSON.stringify(Object.fromEntries(l.outcomes))}`;
    rows.push(
      { name: `${l.mode}: candle close -> order accepted p50`, value: Math.round(percentile(c2a, 50)), unit: 'ms', note },
      { name: `${l.mode}: candle close -> order accepted p99`, value: Math.round(percentile(c2a, 99)), unit: 'ms' },
      { name: `${l.mode}: fill -> journal p50`, value: Math.round(percentile(f2j, 50)), unit: 'ms' },
      { name: `${l.mode}: fill -> journal p99`, value: Math.round(percentile(f2j, 99)), unit: 'ms' },
      { name: `${l.mode}: REST requests per hour (20 markets)`, value: Math.round((l.requests.count - counted[i]!) / hours), unit: 'req/h', note: 'after start-up (warm-up, first reconciliation)' },
    );
  });
  return rows;
}

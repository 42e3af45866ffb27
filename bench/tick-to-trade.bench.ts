import { performance, PerformanceObserver } from 'node:perf_hooks';
import pino from 'pino';
import { CandleFlow } from '../src/strategy/candle-flow';
import { OpenOrderBook } from '../src/execution/kernel/open-order-book';
import { RiskGate } from '../src/execution/orders/risk-gate';
import { riskLimitsFromConfig } from '../src/config/risk-limits';
import { ManualClock, SystemClock } from '../src/core/clock';
import type { Candle } from '../src/domain/candle';
import { Decimal } from '../src/domain/decimal';
import type { OcoReport, OrderReport } from '../src/domain/order';
import type { FetchCandlesRequest, PlaceStopLimitRequest } from '../src/exchange/exchange-client';
import { buildExecution } from '../src/execution/kernel/build-execution';
import { LeaseKeeper } from '../src/execution/guards/lease-keeper';
import { RiskEngine } from '../src/risk/risk-engine';
import { simMarketInfo } from '../src/simulator/sim-markets';
import { InMemoryLeaseStore } from '../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../src/store/memory/in-memory-order-store';
import { prepareStrategy, type LoadedStrategy } from '../src/strategy/prepare-strategy';
import { StrategyHost } from '../src/strategy/strategy-host';
import { GuestHost } from '../src/strategy/guest/guest-host';
import { defaultIsolation } from '../src/strategy/guest/sandbox';

/** Guests in child processes (at the strongest isolation this host gives) or worker threads. */
type GuestIsolation = 'process' | 'thread';
import { execFileSync, spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { loadStrategies } from '../src/strategy/strategy-loader';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { BenchRow } from './bench-types';

/**
 * Tick-to-trade: from the moment a kline answer is in our hands to the moment the order request is
 * handed to the exchange client, through the daemon's real path (CandlePoller -> StrategyHost ->
 * Executor: risk gate, rounding, journal (in-process store), lease) with 100 markets x 3 strategies,
 * every strategy ordering on every candle. The exchange answers at once, in process: no network.
 * A few unmeasured rounds first: a daemon runs for days, so the number to read is the steady state,
 * not the first JIT compilation of the path. Garbage-collection pauses during the measured rounds
 * and a noise floor (the same number of sequential ~p50-long CPU steps, no allocation) are reported
 * beside the latencies: on a shared, loaded box the floor's own p99 says what a p99 can mean.
 */
const MARKETS = Array.from({ length: 100 }, (_, i) => `M${i}_USDT`);
const WARMUP_ROUNDS = 10;
const ROUNDS = 20;
const zero = new Decimal(0);

function candleAt(market: string, time: number): Candle {
  const base = 100 + (market.length % 7) + Math.sin(time / 600) * 2;
  const p = (x: number) => new Decimal(x.toFixed(2));
  return { time, open: p(base), high: p(base + 0.5), low: p(base - 0.5), close: p(base + 0.1), volume: new Decimal(10), volumeMoney: new Decimal(1000) };
}

class InstantExchange {
  readonly answeredAt = new Map<string, number>();
  readonly latenciesMs: number[] = [];
  private nextId = 1;
  constructor(private readonly clock: ManualClock) {}
  async fetchMarkets() {
    return MARKETS.map((m) => simMarketInfo(m));
  }
  async fetchCandles(r: FetchCandlesRequest): Promise<Candle[]> {
    const out: Candle[] = [];
    const end = Math.min(r.end ?? 0, Math.floor(this.clock.nowMs() / 1000));
    for (let t = r.start ?? 0; t <= end && out.length < (r.limit ?? 1440); t += 60) out.push(candleAt(r.market, t));
    this.answeredAt.set(r.market, performance.now()); // the kline answer is in our hands
    return out;
  }
  async placeStopLimit(r: PlaceStopLimitRequest): Promise<OrderReport> {
    const t0 = this.answeredAt.get(r.market);
    if (t0 !== undefined) this.latenciesMs.push(performance.now() - t0);
    const amount = new Decimal(String(r.amount));
    // Filled at once, so open orders do not pile up over the rounds (the risk engine would cap them).
    return {
      orderId: this.nextId++, clientOrderId: r.clientOrderId, market: r.market, side: r.side, type: 'stop limit', timestamp: Date.now() / 1000,
      amount, left: zero, dealStock: amount, dealMoney: amount.times(String(r.price)), dealFee: zero, price: new Decimal(String(r.price)),
      activationPrice: new Decimal(String(r.activationPrice)), activationCondition: 'gte', activated: true, status: 'FILLED',
    };
  }
  async placeOco(): Promise<OcoReport> { throw new Error('unused'); }
  async cancelOrder(): Promise<OrderReport> { throw new Error('unused'); }
  async cancelOco(): Promise<OcoReport> { throw new Error('unused'); }
  async fetchActiveOrders() { return []; }
  async fetchActiveOcoOrders() { return []; }
  async fetchOrderHistory() { return []; }
}

function benchStrategy(name: string): LoadedStrategy {
  return prepareStrategy({
    name, markets: MARKETS, interval: '1m', warmup: 2, params: z.object({}),
    onCandle: (ctx: { market: string; candle: Candle }) => [{
      kind: 'stop_limit', market: ctx.market, side: 'buy', amount: new Decimal('0.1'),
      activationPrice: ctx.candle.close.times('1.001'), price: ctx.candle.close.times('1.002'),
    }],
  }, {});
}

/** The same bench strategy as a module file per name, for guests (each loads its own module in its thread). */
function benchModules(names: readonly string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-bench-guests-'));
  for (const name of names) {
    writeFileSync(path.join(dir, `${name}.js`), `const { Decimal, z } = require('tradebot/strategy');
module.exports = {
  name: ${JSON.stringify(name)}, markets: ${JSON.stringify(MARKETS)}, interval: '1m', warmup: 2, params: z.object({}),
  onCandle: (ctx) => [{ kind: 'stop_limit', market: ctx.market, side: 'buy', amount: new Decimal('0.1'),
    activationPrice: ctx.candle.close.times('1.001'), price: ctx.candle.close.times('1.002') }],
};
`);
  }
  return dir;
}

/** RSS of this process's node child processes (the process guests), MiB, from ps. */
async function childRssMiB(): Promise<number> {
  const out = execFileSync('ps', ['-o', 'rss=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const nodes = out.split('\n').map((l) => l.trim().split(/\s+/)).filter(([, comm]) => comm === 'node');
  return nodes.reduce((sum, [rss]) => sum + Number(rss), 0) / 1024;
}

/**
 * The boundary's own floor: the same number of sequential round trips (one small message to each of 3
 * idle echo guests at once, all answers awaited) with no daemon code on either side: what waking 3
 * processes or threads and being woken back costs on this machine, before any work.
 */
async function roundTripFloor(isolation: GuestIsolation, trips: number): Promise<number[]> {
  const echo = isolation === 'process'
    ? Array.from({ length: 3 }, () => spawn(process.execPath, ['-e', 'process.on("message", (m) => process.send(m))'], { env: {}, stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced' }))
    : Array.from({ length: 3 }, () => new Worker('require("node:worker_threads").parentPort.on("message", (m) => require("node:worker_threads").parentPort.postMessage(m))', { eval: true, env: {} }));
  const trip = (g: (typeof echo)[number], m: unknown) => new Promise<void>((resolve) => {
    g.once('message', () => resolve());
    if (g instanceof Worker) g.postMessage(m);
    else g.send(m as object);
  });
  const msg = { type: 'candles', id: 1, interval: '1m', nowMs: 0, items: [{ market: 'M0_USDT', candle: [0, '100.1', '100.6', '99.6', '100.2', '10', '1000'], view: {} }], warm: false };
  const lat: number[] = [];
  for (let i = 0; i < trips + 500; i++) {
    const t0 = performance.now();
    await Promise.all(echo.map((g) => trip(g, msg)));
    if (i >= 500) lat.push(performance.now() - t0);
  }
  for (const g of echo) {
    if (g instanceof Worker) await g.terminate();
    else g.kill('SIGKILL');
  }
  return lat.sort((a, b) => a - b);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface GcStats {
  count: number;
  totalMs: number;
  maxMs: number;
}

/** GC pauses while `fn` runs (PerformanceObserver 'gc' entries; delivered asynchronously). */
async function withGcStats<T>(fn: () => Promise<T>): Promise<{ result: T; gc: GcStats }> {
  const gc: GcStats = { count: 0, totalMs: 0, maxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const result = await fn();
  await new Promise((r) => setTimeout(r, 100)); // entries arrive on a later turn of the loop
  observer.disconnect();
  return { result, gc };
}

/** The same number of sequential async steps, each a `stepMs` busy loop: what the box adds to a p99. */
async function noiseFloor(steps: number, stepMs: number): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    while (performance.now() - t0 < stepMs) { /* busy: no allocation, no I/O */ }
    await null;
    lat.push(performance.now() - t0);
  }
  return lat.sort((a, b) => a - b);
}

interface Measured {
  lat: number[];
  elapsed: number;
  gc: GcStats;
  rssPerGuestMiB?: number;
  /** Per measured round: its start (the jobs of one close fired) -> the last order of that close. */
  closeToLastMs: number[];
  /** Messages to the guests per guest and candle close (GuestHost batches). */
  messagesPerGuestPerClose?: number;
}

/**
 * `burst`: the kline jobs of one close run concurrently, as the daemon's scheduler fires them (every
 * market's job at the same instant); otherwise one after the other, which isolates the path's own
 * latency (the tick-to-trade goal). In a burst every order of the close queues behind the ones before
 * it, in-process or not: what matters there is close -> last order and how many messages cross.
 */
async function measure(fullRefresh: boolean, guests: GuestIsolation | undefined = undefined, burst = false): Promise<Measured> {
  const start = 1_700_000_040 * 1000;
  const clock = new ManualClock(start);
  const exchange = new InstantExchange(clock);
  const wall = new SystemClock();
  const leaseStore = new InMemoryLeaseStore(wall);
  const store = new InMemoryOrderStore(leaseStore, wall);
  const strategies = ['alpha', 'beta', 'gamma'].map(benchStrategy);
  const leases = new LeaseKeeper({ store: leaseStore, owner: 'bench', ttlMs: 3_600_000 });
  for (const s of strategies) for (const m of MARKETS) leases.want(s.name, m);
  await leases.tick();
  const book = new OpenOrderBook(store);
  const engine = new RiskEngine({ limits: riskLimitsFromConfig({ initialState: 'active', defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' }, markets: {}, feeMargin: '0.002' }) });
  let flow: CandleFlow | undefined;
  let lastRefresh = 0;
  const big = { USDT: { available: new Decimal('1e12'), freeze: zero } };
  const exec = buildExecution({
    exchange, store, leases, risk: new RiskGate(engine, { lastPrice: (m) => flow?.lastPrice(m), balances: () => big, openOnMarket: (m) => book.onMarket(m) }),
    clock: wall, markets: MARKETS, requestTimeoutMs: 1000,
  });
  await exec.reconciler.runOnce();
  exec.reconciler.stop();
  let host: StrategyHost | GuestHost;
  let guestDir: string | undefined;
  let rssPerGuestMiB: number | undefined;
  let messages = 0;
  if (guests) {
    guestDir = benchModules(strategies.map((s) => s.name));
    const dir = guestDir;
    const rssBefore = process.memoryUsage().rss;
    const guestHost = new GuestHost({
      strategies: loadStrategies(dir).strategies, dir, configFor: () => ({}), clock, timeBudgetMs: 250, isolation: guests === 'process' ? defaultIsolation() : guests,
      events: { onBatch: () => { messages++; } },
    });
    await guestHost.start();
    rssPerGuestMiB = guests === 'process' ? await childRssMiB() / 3 : (process.memoryUsage().rss - rssBefore) / 3 / 1024 / 1024;
    host = guestHost;
  } else {
    host = new StrategyHost({ strategies, clock, timeBudgetMs: 250 });
  }
  const log = pino({ level: 'silent' });
  flow = new CandleFlow({
    host, client: exchange, clock, log, klineDelayMs: 1500, warmupFor: () => 2,
    sink: {
      submit: async (intents) => {
        // As the daemon's sink (build-app.ts): note our own submissions, full re-read at most once a second.
        for (const s of intents) {
          const result = await exec.executor.submit(s);
          if (result.outcome !== 'denied') book.note(result.records);
        }
        if (fullRefresh && performance.now() - lastRefresh >= 1000) {
          lastRefresh = performance.now();
          await book.refresh();
        }
      },
    },
  });
  await flow.warmUp();
  const jobs = flow.jobs();
  const signal = new AbortController().signal;
  const closeToLastMs: number[] = [];
  const rounds = async (n: number): Promise<void> => {
    for (let round = 0; round < n; round++) {
      clock.advanceMs(60_000);
      const began = performance.now();
      const run = (job: (typeof jobs)[number]) => job.run({ job: job.name, scheduledAtMs: clock.nowMs(), signal });
      if (burst) await Promise.all(jobs.map(run));
      else for (const job of jobs) await run(job);
      closeToLastMs.push(performance.now() - began);
    }
  };
  await rounds(WARMUP_ROUNDS);
  exchange.latenciesMs.length = 0;
  closeToLastMs.length = 0;
  messages = 0;
  const t0 = performance.now();
  const { gc } = await withGcStats(() => rounds(ROUNDS));
  const elapsed = performance.now() - t0;
  if (host instanceof GuestHost) await host.close();
  if (guestDir !== undefined) rmSync(guestDir, { recursive: true, force: true });
  return {
    lat: [...exchange.latenciesMs].sort((a, b) => a - b), elapsed, gc, closeToLastMs: closeToLastMs.sort((a, b) => a - b),
    ...(rssPerGuestMiB === undefined ? {} : { rssPerGuestMiB, messagesPerGuestPerClose: messages / 3 / ROUNDS }),
  };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let p50 = 0.2;
  for (const fullRefresh of [false, true]) {
    const { lat, elapsed, gc } = await measure(fullRefresh);
    p50 = percentile(lat, 50);
    const variant = fullRefresh ? ' (+ journal re-read 1/s)' : '';
    const note = `${MARKETS.length} markets x 3 strategies, ${lat.length} orders after ${WARMUP_ROUNDS} unmeasured rounds; kline answer -> placeStopLimit called${fullRefresh ? '; open-order view re-read from the in-process journal once a second, as the daemon does' : ''}`;
    rows.push(
      { name: `tick-to-trade p50${variant}`, value: Number(p50.toFixed(3)), unit: 'ms', note },
      { name: `tick-to-trade p99${variant}`, value: Number(percentile(lat, 99).toFixed(3)), unit: 'ms', note: 'goal < 2 ms' },
      { name: `tick-to-trade max${variant}`, value: Number((lat.at(-1) ?? NaN).toFixed(3)), unit: 'ms' },
      { name: `orders per second, sequential${variant}`, value: Math.round(lat.length / (elapsed / 1000)), unit: 'orders/s' },
      { name: `GC pauses during the measured rounds${variant}`, value: gc.count, unit: 'pauses', note: `total ${gc.totalMs.toFixed(1)} ms, longest ${gc.maxMs.toFixed(1)} ms` },
    );
  }
  // Across the boundary: the same path with each strategy in its guest (the daemon's GuestHost), as a
  // child process under the permission model (the default) and as a worker thread; sequential jobs.
  for (const isolation of ['process', 'thread'] as const) {
    const { lat, elapsed, gc, rssPerGuestMiB } = await measure(false, isolation);
    const who = `guests (${isolation})`;
    rows.push(
      { name: `${who}: tick-to-trade p50`, value: Number(percentile(lat, 50).toFixed(3)), unit: 'ms', note: `each strategy in its own ${isolation === 'process' ? 'child process' : 'worker thread'} (GuestHost), plain data across` },
      { name: `${who}: tick-to-trade p99`, value: Number(percentile(lat, 99).toFixed(3)), unit: 'ms', note: 'goal < 2 ms' },
      { name: `${who}: tick-to-trade max`, value: Number((lat.at(-1) ?? NaN).toFixed(3)), unit: 'ms' },
      { name: `${who}: orders per second, sequential`, value: Math.round(lat.length / (elapsed / 1000)), unit: 'orders/s' },
      { name: `${who}: GC pauses (daemon thread)`, value: gc.count, unit: 'pauses', note: `total ${gc.totalMs.toFixed(1)} ms, longest ${gc.maxMs.toFixed(1)} ms` },
      { name: `${who}: memory per guest`, value: Number((rssPerGuestMiB ?? NaN).toFixed(1)), unit: 'MiB', note: isolation === 'process' ? 'RSS of the 3 child processes / 3, module loaded' : 'daemon RSS growth / 3, module loaded' },
    );
  }
  // Burst, as the daemon fires a close's kline jobs: in-process and guests side by side.
  for (const guests of [undefined, 'process', 'thread'] as const) {
    const m = await measure(false, guests, true);
    const who = guests === undefined ? 'in-process' : `guests (${guests})`;
    rows.push(
      { name: `burst, ${who}: close -> last order p50`, value: Number(percentile(m.closeToLastMs, 50).toFixed(2)), unit: 'ms', note: `all ${MARKETS.length} kline jobs of a close at once; ${MARKETS.length * 3} orders queue behind each other (max ${(m.closeToLastMs.at(-1) ?? NaN).toFixed(1)} ms)` },
      { name: `burst, ${who}: orders per second`, value: Math.round(m.lat.length / (m.elapsed / 1000)), unit: 'orders/s' },
    );
    if (guests !== undefined) rows.push({ name: `burst, ${who}: messages per guest per close`, value: Number((m.messagesPerGuestPerClose ?? NaN).toFixed(1)), unit: 'messages', note: `${MARKETS.length} candles per guest per close; one batch out per guest at a time` });
  }
  for (const isolation of ['process', 'thread'] as const) {
    const trips = await roundTripFloor(isolation, MARKETS.length * ROUNDS);
    rows.push({
      name: `boundary floor (${isolation}): 3 echo round trips p99`, value: Number(percentile(trips, 99).toFixed(3)), unit: 'ms',
      note: `${trips.length} sequential trips to 3 idle echo ${isolation === 'process' ? 'processes' : 'threads'} at once, no daemon code (p50 ${percentile(trips, 50).toFixed(3)} ms): below this no guest p99 can go`,
    });
  }
  const floor = await noiseFloor(MARKETS.length * 3 * ROUNDS, p50);
  rows.push({
    name: 'noise floor p99', value: Number(percentile(floor, 99).toFixed(3)), unit: 'ms',
    note: `${floor.length} sequential ${p50.toFixed(3)} ms busy steps (p50 ${percentile(floor, 50).toFixed(3)} ms, max ${(floor.at(-1) ?? NaN).toFixed(1)} ms): the machine's share of any p99 here`,
  });
  return rows;
}

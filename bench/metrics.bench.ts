import { Registry } from 'prom-client';
import { ENDPOINTS } from '../src/exchange/wire/endpoints';
import { LIMIT_IDS } from '../src/limiter/limits';
import { EXCHANGE_OUTCOMES } from '../src/metrics/definitions';
import { createMetrics, initStrategySeries, recordCandleClose, recordKillSwitchRefresh, setTradingState, type Metrics } from '../src/metrics/registry';
import type { BenchRow } from './bench-types';

const MARKETS = 100;
const STRATEGIES = ['sma-cross', 'rsi-reversion', 'donchian-breakout'];
const RULES = ['none', 'checkNotional', 'checkPrecision', 'checkBalance', 'checkPriceBand'];

/** Fills every metric with the label values a 100-market, 3-strategy deployment would produce. */
function populate(metrics: Metrics): number {
  const now = Date.now() / 1000;
  const markets = Array.from({ length: MARKETS }, (_, i) => `C${i}_USDT`);
  for (const endpoint of Object.keys(ENDPOINTS)) {
    for (const outcome of EXCHANGE_OUTCOMES) metrics.exchangeRequests.inc({ api_endpoint: endpoint, outcome }, 3);
    for (let i = 0; i < 20; i++) metrics.exchangeRequestDuration.observe({ api_endpoint: endpoint }, 0.01 * (i + 1));
  }
  for (const limit of LIMIT_IDS) {
    metrics.limiterWait.observe({ limit }, 0.002);
    metrics.limiterAvailableTokens.set({ limit }, 900);
  }
  for (const from of ['pending', 'submitted', 'open', 'triggered', 'partially_filled', 'cancel_pending']) {
    for (const to of ['submitted', 'open', 'filled', 'canceled', 'rejected']) metrics.orderTransitions.inc({ from, to });
  }
  for (const strategy of STRATEGIES) {
    for (const rule of RULES) metrics.intents.inc({ strategy, result: rule === 'none' ? 'accepted' : 'denied', rule });
    metrics.strategyErrors.inc({ strategy });
    metrics.strategyOverruns.inc({ strategy });
    metrics.strategyDuration.observe({ strategy }, 0.004);
    for (const market of markets) {
      initStrategySeries(metrics, strategy, [market]);
      metrics.openOrders.set({ strategy, market }, 2);
      metrics.leaseOwned.set({ account: 'bench0account', strategy, market }, 1);
    }
  }
  for (const market of markets) {
    recordCandleClose(metrics, market, '1m', now - 30);
    recordKillSwitchRefresh(metrics, market, Date.now(), 60);
    metrics.balance.set({ currency: market.split('_')[0] ?? market, kind: 'available' }, 1.5);
    metrics.balance.set({ currency: market.split('_')[0] ?? market, kind: 'freeze' }, 0.5);
  }
  for (const task of ['balances', 'kill-switch', 'reconcile', 'leases', 'trading-state', ...markets.map((m) => `klines:${m}:1m`)]) {
    metrics.pollLastSuccess.set({ task }, now);
    metrics.pollInterval.set({ task }, 60);
    metrics.pollFailures.inc({ task });
  }
  metrics.redisUp.set(1);
  setTradingState(metrics, 'active');
  return markets.length;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function measure(defaultMetrics: boolean): Promise<{ p50: number; p95: number; cpu: number; series: number; kib: number }> {
  const registry = new Registry();
  populate(createMetrics(registry, { version: 'bench', defaultMetrics }));
  const text = await registry.metrics();
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  for (let i = 0; i < 20; i++) await registry.metrics(); // warm-up
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await registry.metrics();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), cpu: (cpu.user + cpu.system) / 1000 / RUNS, series, kib: Math.round(text.length / 1024) };
}

const RUNS = 200;
const round = (n: number) => Number(n.toFixed(2));

export async function run(): Promise<BenchRow[]> {
  const all = await measure(true);
  const own = await measure(false);
  const note = `${MARKETS} markets x ${STRATEGIES.length} strategies, ${all.series} series, ${all.kib} KiB; goal < 20 ms`;
  return [
    { name: 'metrics render p50 (registry.metrics())', value: round(all.p50), unit: 'ms', note },
    { name: 'metrics render p95 (registry.metrics())', value: round(all.p95), unit: 'ms', note },
    { name: 'metrics render CPU per scrape', value: round(all.cpu), unit: 'ms', note: 'user+system CPU, less sensitive to a busy machine than wall time' },
    { name: 'metrics render p50 without default process metrics', value: round(own.p50), unit: 'ms', note: `${own.series} series` },
  ];
}

if (require.main === module) {
  run().then((rows) => console.table(rows), (e: unknown) => { console.error(e); process.exitCode = 1; });
}

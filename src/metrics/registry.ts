import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { SystemClock, type Clock } from '../core/clock';
import { intervalSeconds, type Interval } from '../domain/candle';
import { ENDPOINTS } from '../exchange/wire/endpoints';
import { TRANSITIONS } from '../domain/order-state';
import {
  DISCREPANCY_KINDS, METRIC_DEFS, METRIC_PREFIX, RECONCILE_UPDATE_KINDS, REDIS_PRIMARY_CHANGES, TRADING_STATES,
  type MetricDef, type MetricKey, type TradingStateLabel,
} from './definitions';

type Instance<D> =
  D extends MetricDef<'counter', infer L> ? Counter<L>
  : D extends MetricDef<'gauge', infer L> ? Gauge<L>
  : D extends MetricDef<'histogram', infer L> ? Histogram<L>
  : never;

/**
 * Every tradebot metric, typed by its labels: `metrics.exchangeRequests.inc({ api_endpoint, outcome })`.
 * One object per process, built by the composition root and passed to components.
 */
export type Metrics = { readonly [K in MetricKey]: Instance<(typeof METRIC_DEFS)[K]> };

export interface CreateMetricsOptions {
  /** Market clock, for the candle lag computed at scrape time; default the system clock. */
  readonly clock?: Clock;
  /** Wall clock, for the kill-switch time left computed at scrape time; default the system clock. */
  readonly wallClock?: Clock;
  /** Reported in tradebot_build_info; default `npm_package_version` or 'unknown'. */
  readonly version?: string;
  /** Register Node.js process metrics (`tradebot_process_*`, `tradebot_nodejs_*`); default true. */
  readonly defaultMetrics?: boolean;
  /**
   * Whether this process uses Redis; default true. Paper mode without Redis passes false so that
   * tradebot_redis_up is not exported at all (a label-less gauge would read 0 and page "Redis down").
   */
  readonly redis?: boolean;
  /**
   * The /readyz checks, run at scrape time for tradebot_ready{check}; may be set after creation
   * (the daemon builds its checks once its parts exist). None: the gauge has no series.
   */
  readonly readiness?: () => Promise<Readonly<Record<string, boolean>>>;
}

/**
 * prom-client's default metrics add three gauges named `*_total` (active handles, requests and
 * resources), a suffix Prometheus reserves for counters: `promtool check metrics` fails on them.
 * The same values stay available without the suffix (`tradebot_nodejs_active_handles`, ...).
 */
const TOTAL_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  for (const name of TOTAL_GAUGES) registry.removeSingleMetric(`${METRIC_PREFIX}${name}`);
}

/**
 * Builds every metric on the given registry (never prom-client's global one, so tests and several
 * daemons in one process stay apart). Throws if the registry already holds a tradebot metric.
 */
export function createMetrics(registry: Registry, options: CreateMetricsOptions = {}): Metrics {
  const clock = options.clock ?? new SystemClock();
  const built: Record<string, Counter<string> | Gauge<string> | Histogram<string>> = {};
  const wallClock = options.wallClock ?? new SystemClock();
  const lastClose = () => built['candleLastClose'] as Gauge<string>;
  const gaugeValues = async (key: MetricKey) => (await (built[key] as Gauge<string>).get()).values;

  for (const [key, def] of Object.entries(METRIC_DEFS) as [MetricKey, MetricDef][]) {
    const registers = key === 'redisUp' && options.redis === false ? [] : [registry];
    const common = { name: def.name, help: def.help, labelNames: [...def.labelNames], registers };
    if (def.kind === 'counter') built[key] = new Counter(common);
    else if (def.kind === 'histogram') built[key] = new Histogram({ ...common, buckets: [...(def.buckets ?? [])] });
    else if (key === 'ready') {
      built[key] = new Gauge({
        ...common,
        async collect() {
          this.reset();
          const source = options.readiness ?? readinessSource.get(built);
          if (source === undefined) return;
          for (const [check, ok] of Object.entries(await source())) this.set({ check }, ok ? 1 : 0);
        },
      });
    } else if (key === 'killSwitchRemaining') {
      // Computed when scraped: exact at that instant whatever the scrape interval (a paper-speed
      // timer of 10 wall seconds cannot be watched through a timestamp scraped every 15 s).
      built[key] = new Gauge({
        ...common,
        async collect() {
          this.reset();
          const timeouts = new Map((await gaugeValues('killSwitchTimeout')).map((v) => [v.labels['market'], v.value]));
          const nowSec = wallClock.nowMs() / 1000;
          for (const { labels, value } of await gaugeValues('killSwitchLastRefresh')) {
            const timeout = timeouts.get(labels['market']);
            if (timeout !== undefined) this.set(labels, Math.max(0, value + timeout - nowSec));
          }
        },
      });
    } else if (key === 'candleLag') {
      // Computed when scraped, not when a candle arrives: if polling stops, the lag must keep growing.
      built[key] = new Gauge({
        ...common,
        async collect() {
          this.reset();
          const nowSec = clock.nowMs() / 1000;
          for (const { labels, value } of (await lastClose().get()).values) {
            this.set(labels, Math.max(0, nowSec - value));
          }
        },
      });
    } else built[key] = new Gauge(common);
  }

  const metrics = built as unknown as Metrics;
  // Zero series for the fixed label values, so rate()/increase() see the first event.
  for (const state of TRADING_STATES) metrics.tradingState.set({ state }, 0);
  for (const [endpoint, spec] of Object.entries(ENDPOINTS)) {
    metrics.rateLimited.inc({ api_endpoint: endpoint }, 0);
    if (spec.private) metrics.nonceRejections.inc({ api_endpoint: endpoint }, 0);
  }
  for (const kind of DISCREPANCY_KINDS) metrics.reconciliationDiscrepancies.inc({ kind }, 0);
  for (const kind of RECONCILE_UPDATE_KINDS) metrics.reconciliationUpdates.inc({ kind }, 0);
  for (const change of REDIS_PRIMARY_CHANGES) metrics.redisFailovers.inc({ change }, 0);
  for (const [from, events] of Object.entries(TRANSITIONS)) {
    for (const to of new Set(Object.values(events))) metrics.orderTransitions.inc({ from, to }, 0);
  }
  metrics.buildInfo.set({ version: options.version ?? process.env['npm_package_version'] ?? 'unknown', node_version: process.version }, 1);
  if (options.defaultMetrics !== false) collectProcessMetrics(registry);
  return metrics;
}

const readinessSource = new WeakMap<object, () => Promise<Readonly<Record<string, boolean>>>>();

/** Sets the readiness checks tradebot_ready{check} reports at scrape time (the daemon's /readyz checks). */
export function setReadinessSource(metrics: Metrics, source: () => Promise<Readonly<Record<string, boolean>>>): void {
  readinessSource.set(metrics, source);
}

/** Zero series for one strategy, so its panels and increase() read 0 rather than no data. */
export function initStrategySeries(metrics: Metrics, strategy: string, markets: readonly string[]): void {
  metrics.intents.inc({ strategy, result: 'accepted', rule: 'none' }, 0);
  metrics.strategyErrors.inc({ strategy }, 0);
  metrics.strategyOverruns.inc({ strategy }, 0);
  metrics.strategyPaused.set({ strategy }, 0);
  metrics.strategyShadowCandles.inc({ strategy }, 0);
  metrics.strategyShadowErrors.inc({ strategy }, 0);
  metrics.strategyShadowOverruns.inc({ strategy }, 0);
  for (const divergence of ['only_live', 'only_shadow', 'different']) metrics.strategyShadowDivergences.inc({ strategy, divergence }, 0);
  for (const cap of ['rate', 'size']) metrics.strategyLogCapped.inc({ strategy, cap }, 0);
  for (const market of markets) {
    for (const side of ['buy', 'sell'] as const) metrics.fills.inc({ strategy, market, side }, 0);
    metrics.realizedPnl.set({ strategy, market }, 0);
    metrics.exposure.set({ strategy, market }, 0);
    metrics.openOrders.set({ strategy, market }, 0);
  }
}

/** The store in use (redis | memory) and the account its keys belong to. */
export function recordStore(metrics: Metrics, backend: 'redis' | 'memory', account: string): void {
  metrics.storeInfo.set({ backend, account }, 1);
}

/** Sets the one-hot trading state gauge: 1 for `state`, 0 for the others. */
export function setTradingState(metrics: Metrics, state: TradingStateLabel): void {
  for (const s of TRADING_STATES) metrics.tradingState.set({ state: s }, s === state ? 1 : 0);
}

/** Records a closed candle: its close time (Unix seconds) feeds tradebot_candle_lag_seconds. */
export function recordCandleClose(metrics: Metrics, market: string, interval: Interval, closeTimeSec: number): void {
  const labels = { market, interval };
  metrics.candleLastClose.set(labels, closeTimeSec);
  metrics.candleIntervalSeconds.set(labels, intervalSeconds(interval));
}

/**
 * Records a kill-switch refresh of `market` at wall-clock `wallNowMs`. `timeoutWallSeconds` is the
 * timer in wall seconds (paper: market seconds / speed), so `time() - last_refresh` compares with it.
 */
export function recordKillSwitchRefresh(metrics: Metrics, market: string, wallNowMs: number, timeoutWallSeconds: number): void {
  metrics.killSwitchLastRefresh.set({ market }, wallNowMs / 1000);
  metrics.killSwitchTimeout.set({ market }, timeoutWallSeconds);
  metrics.killSwitchArmed.set({ market }, 1);
}

/** Names of every metric the registry exports, default process metrics included. */
export function registeredMetricNames(registry: Registry): string[] {
  return registry.getMetricsAsArray().map((m) => m.name);
}

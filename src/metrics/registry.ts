import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { SystemClock, type Clock } from '../core/clock';
import { intervalSeconds, type Interval } from '../domain/candle';
import { ENDPOINTS } from '../exchange/http/endpoints';
import {
  DISCREPANCY_KINDS, METRIC_DEFS, METRIC_PREFIX, TRADING_STATES,
  type MetricDef, type MetricKey, type TradingStateLabel,
} from './definitions';

type Instance<D> =
  D extends MetricDef<'counter', infer L> ? Counter<L>
  : D extends MetricDef<'gauge', infer L> ? Gauge<L>
  : D extends MetricDef<'histogram', infer L> ? Histogram<L>
  : never;

/**
 * Every tradebot metric, typed by its labels: `metrics.exchangeRequests.inc({ endpoint, outcome })`.
 * One object per process, built by the composition root and passed to components.
 */
export type Metrics = { readonly [K in MetricKey]: Instance<(typeof METRIC_DEFS)[K]> };

export interface CreateMetricsOptions {
  /** Clock for the candle lag computed at scrape time; default the system clock. */
  readonly clock?: Clock;
  /** Reported in tradebot_build_info; default `npm_package_version` or 'unknown'. */
  readonly version?: string;
  /** Register Node.js process metrics (`tradebot_process_*`, `tradebot_nodejs_*`); default true. */
  readonly defaultMetrics?: boolean;
  /**
   * Whether this process uses Redis; default true. Paper mode without Redis passes false so that
   * tradebot_redis_up is not exported at all (a label-less gauge would read 0 and page "Redis down").
   */
  readonly redis?: boolean;
}

/**
 * Builds every metric on the given registry (never prom-client's global one, so tests and several
 * daemons in one process stay apart). Throws if the registry already holds a tradebot metric.
 */
export function createMetrics(registry: Registry, options: CreateMetricsOptions = {}): Metrics {
  const clock = options.clock ?? new SystemClock();
  const built: Record<string, Counter<string> | Gauge<string> | Histogram<string>> = {};
  const lastClose = () => built['candleLastClose'] as Gauge<string>;

  for (const [key, def] of Object.entries(METRIC_DEFS) as [MetricKey, MetricDef][]) {
    const registers = key === 'redisUp' && options.redis === false ? [] : [registry];
    const common = { name: def.name, help: def.help, labelNames: [...def.labelNames], registers };
    if (def.kind === 'counter') built[key] = new Counter(common);
    else if (def.kind === 'histogram') built[key] = new Histogram({ ...common, buckets: [...(def.buckets ?? [])] });
    else if (key === 'candleLag') {
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
    metrics.rateLimited.inc({ endpoint }, 0);
    if (spec.private) metrics.nonceRejections.inc({ endpoint }, 0);
  }
  for (const kind of DISCREPANCY_KINDS) metrics.reconciliationDiscrepancies.inc({ kind }, 0);
  metrics.buildInfo.set({ version: options.version ?? process.env['npm_package_version'] ?? 'unknown', node_version: process.version }, 1);
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return metrics;
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

/** Records a kill-switch refresh of `market` at `nowMs` with its configured timeout. */
export function recordKillSwitchRefresh(metrics: Metrics, market: string, nowMs: number, timeoutSeconds: number): void {
  metrics.killSwitchLastRefresh.set({ market }, nowMs / 1000);
  metrics.killSwitchTimeout.set({ market }, timeoutSeconds);
}

/** Names of every metric the registry exports, default process metrics included. */
export function registeredMetricNames(registry: Registry): string[] {
  return registry.getMetricsAsArray().map((m) => m.name);
}

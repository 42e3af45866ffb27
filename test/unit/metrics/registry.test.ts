import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/core/clock';
import { RateLimitedError, RequestTimeoutError, ExchangeRejectedError } from '../../../src/domain/errors';
import { LABEL_DOMAINS, METRIC_DEFS, METRIC_NAMES, METRIC_PREFIX } from '../../../src/metrics/definitions';
import { exchangeOutcome, recordExchangeRequest } from '../../../src/metrics/exchange-outcome';
import {
  createMetrics, recordCandleClose, recordKillSwitchRefresh, registeredMetricNames, setTradingState,
} from '../../../src/metrics/registry';

function fresh(clock = new ManualClock(1_700_000_000_000)) {
  const registry = new Registry();
  return { registry, clock, metrics: createMetrics(registry, { clock, version: '1.2.3', defaultMetrics: false }) };
}

async function value(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  const data = await metric?.get();
  return data?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('metric definitions', () => {
  it('every name is prefixed, unique and carries a unit or _total', () => {
    expect(new Set(METRIC_NAMES).size).toBe(METRIC_NAMES.length);
    for (const def of Object.values(METRIC_DEFS)) {
      expect(def.name.startsWith(METRIC_PREFIX)).toBe(true);
      if (def.kind === 'counter') expect(def.name).toMatch(/_total$/);
      if (def.kind === 'histogram') expect(def.name).toMatch(/_seconds$/);
      expect(def.name).not.toMatch(/_(bucket|sum|count)$/);
    }
  });

  it('every label is bounded: it has a declared domain and is never a per-order value', () => {
    for (const def of Object.values(METRIC_DEFS)) {
      for (const label of def.labelNames) {
        expect([def.name, label, LABEL_DOMAINS[label] !== undefined]).toEqual([def.name, label, true]);
        expect(label).not.toMatch(/id$|Id$|price|amount|nonce|reqId/i);
      }
    }
  });
});

describe('createMetrics', () => {
  it('registers every metric exactly once on the injected registry, not the global one', async () => {
    const { registry } = fresh();
    expect(registeredMetricNames(registry).sort()).toEqual([...METRIC_NAMES].sort());
    const { register } = await import('prom-client');
    expect(register.getSingleMetric('tradebot_exchange_requests_total')).toBeUndefined();
    expect(() => createMetrics(registry, { defaultMetrics: false })).toThrow(/already been registered/);
  });

  it('adds prefixed default process metrics when asked', () => {
    const registry = new Registry();
    createMetrics(registry);
    const names = registeredMetricNames(registry);
    const extra = names.filter((n) => !METRIC_NAMES.includes(n));
    expect(extra.length).toBeGreaterThan(5);
    expect(extra.every((n) => n.startsWith(METRIC_PREFIX))).toBe(true);
    expect(names).toContain('tradebot_process_cpu_seconds_total');
  });

  it('leaves tradebot_redis_up out when the process runs without Redis', () => {
    const registry = new Registry();
    const metrics = createMetrics(registry, { defaultMetrics: false, redis: false });
    metrics.redisUp.set(0);
    expect(registeredMetricNames(registry)).not.toContain('tradebot_redis_up');
  });

  it('reports build info and one-hot trading state', async () => {
    const { registry, metrics } = fresh();
    expect(await value(registry, 'tradebot_build_info', { version: '1.2.3', node_version: process.version })).toBe(1);
    expect(await value(registry, 'tradebot_trading_state', { state: 'active' })).toBe(0);
    setTradingState(metrics, 'halted');
    setTradingState(metrics, 'reducing');
    expect(await value(registry, 'tradebot_trading_state', { state: 'halted' })).toBe(0);
    expect(await value(registry, 'tradebot_trading_state', { state: 'reducing' })).toBe(1);
  });

  it('computes candle lag at scrape time from the clock, so a stalled poller shows a growing lag', async () => {
    const { registry, metrics, clock } = fresh();
    const close = clock.nowMs() / 1000 - 5;
    recordCandleClose(metrics, 'BTC_USDT', '1m', close);
    expect(await value(registry, 'tradebot_candle_lag_seconds', { market: 'BTC_USDT', interval: '1m' })).toBe(5);
    clock.advanceMs(600_000);
    expect(await value(registry, 'tradebot_candle_lag_seconds', { market: 'BTC_USDT', interval: '1m' })).toBe(605);
    expect(await value(registry, 'tradebot_candle_interval_seconds', { market: 'BTC_USDT', interval: '1m' })).toBe(60);
  });

  it('records kill-switch refreshes with their timeout', async () => {
    const { registry, metrics } = fresh();
    recordKillSwitchRefresh(metrics, 'BTC_USDT', 1_700_000_000_000, 60);
    expect(await value(registry, 'tradebot_kill_switch_last_refresh_timestamp_seconds', { market: 'BTC_USDT' })).toBe(1_700_000_000);
    expect(await value(registry, 'tradebot_kill_switch_timeout_seconds', { market: 'BTC_USDT' })).toBe(60);
  });

  it('starts 429 and nonce counters at zero so increase() sees the first event', async () => {
    const { registry } = fresh();
    expect(await value(registry, 'tradebot_exchange_rate_limited_total', { api_endpoint: 'stopLimit' })).toBe(0);
    expect(await value(registry, 'tradebot_exchange_nonce_rejections_total', { api_endpoint: 'stopLimit' })).toBe(0);
    expect(await value(registry, 'tradebot_exchange_nonce_rejections_total', { api_endpoint: 'kline' })).toBeUndefined();
  });
});

describe('exchange request outcomes', () => {
  it('maps the error tree to outcome labels', () => {
    expect(exchangeOutcome()).toBe('ok');
    expect(exchangeOutcome(new RateLimitedError('429'))).toBe('rate_limited');
    expect(exchangeOutcome(new RateLimitedError('429', { nonce: true }))).toBe('nonce_rejected');
    expect(exchangeOutcome(new RequestTimeoutError('slow'))).toBe('timeout');
    expect(exchangeOutcome(new ExchangeRejectedError('no', 10, {}, 422))).toBe('rejected');
    expect(exchangeOutcome(new Error('x'))).toBe('error');
  });

  it('records counter, latency and the 429/nonce counters in one call', async () => {
    const { registry, metrics } = fresh();
    recordExchangeRequest(metrics, 'stopLimit', 0.12);
    recordExchangeRequest(metrics, 'stopLimit', 0.3, new RateLimitedError('429'));
    recordExchangeRequest(metrics, 'stopLimit', 0.3, new RateLimitedError('429', { nonce: true }));
    expect(await value(registry, 'tradebot_exchange_requests_total', { api_endpoint: 'stopLimit', outcome: 'ok' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_rate_limited_total', { api_endpoint: 'stopLimit' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_nonce_rejections_total', { api_endpoint: 'stopLimit' })).toBe(1);
    const text = await registry.metrics();
    expect(text).toContain('tradebot_exchange_request_duration_seconds_count{api_endpoint="stopLimit"} 3');
  });
});

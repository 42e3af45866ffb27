import { Registry } from 'prom-client';
import { requestObserver } from '../../../src/app/exchange-wiring';
import { ManualClock } from '../../../src/core/clock';
import { RateLimitedError, RequestTimeoutError } from '../../../src/domain/errors';
import type { ClientRequestEvent } from '../../../src/exchange/http/client';
import { createMetrics } from '../../../src/metrics/registry';

async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const data = await registry.getSingleMetric(name)?.get();
  return data?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

function attempt(outcome: string, error?: unknown): ClientRequestEvent {
  const base = { endpoint: 'stopLimit' as const, outcome, durationMs: 120, attempt: 1, region: 'global' as const };
  return error === undefined ? base : { ...base, error };
}

describe('requestObserver (the exchange client\'s per-attempt metrics hook)', () => {
  function setup() {
    const registry = new Registry();
    const metrics = createMetrics(registry, { clock: new ManualClock(0), defaultMetrics: false });
    const debug: unknown[] = [];
    const observe = requestObserver(metrics, { debug: (obj: unknown) => { debug.push(obj); } } as never);
    return { registry, observe, debug };
  }

  test('a refused nonce (429 with context.nonce) is counted apart from a rate limit', async () => {
    const { registry, observe, debug } = setup();
    observe(attempt('ok'));
    observe(attempt('TB_ERR_RATE_LIMITED', new RateLimitedError('Too many requests.', { nonce: true })));
    observe(attempt('TB_ERR_RATE_LIMITED', new RateLimitedError('Too many requests.')));
    observe(attempt('TB_ERR_TIMEOUT', new RequestTimeoutError('slow')));
    const requests = (outcome: string) => value(registry, 'tradebot_exchange_requests_total', { api_endpoint: 'stopLimit', outcome });
    expect(await requests('ok')).toBe(1);
    expect(await requests('nonce_rejected')).toBe(1);
    expect(await requests('rate_limited')).toBe(1);
    expect(await requests('timeout')).toBe(1);
    expect(await value(registry, 'tradebot_exchange_nonce_rejections_total', { api_endpoint: 'stopLimit' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_rate_limited_total', { api_endpoint: 'stopLimit' })).toBe(1);
    expect(await registry.metrics()).toContain('tradebot_exchange_request_duration_seconds_count{api_endpoint="stopLimit"} 4');
    expect(debug).toHaveLength(3);
    expect(debug[0]).toMatchObject({ outcome: 'nonce_rejected', code: 'TB_ERR_RATE_LIMITED' });
  });

  test('an event with only an error code falls back to the code mapping', async () => {
    const { registry, observe } = setup();
    observe(attempt('TB_ERR_RATE_LIMITED'));
    observe(attempt('TB_ERR_EXCHANGE_REJECTED'));
    expect(await value(registry, 'tradebot_exchange_requests_total', { api_endpoint: 'stopLimit', outcome: 'rate_limited' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_requests_total', { api_endpoint: 'stopLimit', outcome: 'rejected' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_rate_limited_total', { api_endpoint: 'stopLimit' })).toBe(1);
    expect(await value(registry, 'tradebot_exchange_nonce_rejections_total', { api_endpoint: 'stopLimit' })).toBe(0);
  });
});

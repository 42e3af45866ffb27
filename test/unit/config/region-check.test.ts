import { parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

/** A live daemon whose orders would go to the venue's EU server (no stop-limit, no OCO) is refused at start-up. */
const live = (exchange: Record<string, unknown>): Record<string, unknown> => ({
  mode: 'live', exchange, strategies: { enabled: [{ name: 'sma-cross' }] },
  // Live mode's required limits (live-limits.ts): these tests are about other keys.
  risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } }, killSwitch: { enabled: true },
});
const env = { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };

function refusal(exchange: Record<string, unknown>): ConfigError {
  try {
    parseConfig(live(exchange), env, 'live.yaml');
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('config accepted');
}

test('primaryRegion eu: refused, naming the key, the 453 and why', () => {
  const err = refusal({ euBaseUrl: 'https://whitebit.eu', primaryRegion: 'eu' });
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.context['path']).toBe('exchange.primaryRegion');
  expect(err.message).toContain('live.yaml: exchange.primaryRegion: "eu"');
  expect(err.message).toContain('does not offer stop-limit or OCO orders (HTTP 453');
});

test('a baseUrl on the EU server: refused, naming exchange.baseUrl', () => {
  const err = refusal({ baseUrl: 'https://whitebit.eu' });
  expect(err.context['path']).toBe('exchange.baseUrl');
  expect(err.message).toContain('whitebit.eu is the EU server');
});

test('the global server with EU reads as failover, and paper mode, are accepted', () => {
  expect(parseConfig(live({ euBaseUrl: 'https://whitebit.eu' }), env).exchange.primaryRegion).toBe('global');
  expect(parseConfig({
    mode: 'paper', exchange: { primaryRegion: 'eu' }, paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } },
    strategies: { enabled: [{ name: 'sma-cross' }] },
  }, {}).mode).toBe('paper');
});

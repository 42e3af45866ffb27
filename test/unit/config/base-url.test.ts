import { baseUrlProblem } from '../../../src/config/base-url';
import { parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

const live = (exchange: Record<string, unknown>): Record<string, unknown> => ({
  mode: 'live', exchange, redis: { url: 'redis://127.0.0.1:6379' }, strategies: { enabled: [{ name: 'sma-cross' }] },
  // Live mode's required limits (live-limits.ts): these tests are about other keys.
  risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } }, killSwitch: { enabled: true },
});
const paper = (exchange: Record<string, unknown>): Record<string, unknown> => ({
  mode: 'paper', exchange, paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
  strategies: { enabled: [{ name: 'sma-cross' }] },
});

function refused(raw: Record<string, unknown>, path: string, message: RegExp): void {
  let caught: unknown;
  try {
    parseConfig(raw, {});
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).context['path']).toBe(path);
  expect((caught as ConfigError).message).toMatch(message);
}

describe('exchange base URLs at config check', () => {
  test.each([
    ['https://whitebit.com', undefined],
    ['https://whitebit.eu/', undefined],
    ['http://127.0.0.1:8080', undefined],
    ['http://localhost:8080', undefined],
    ['http://[::1]:8080', undefined],
    ['http://whitebit.com', /plain http: is allowed only on loopback/],
    ['http://10.0.0.5:8080', /plain http: is allowed only on loopback/],
    ['http://127.0.0.1.evil.example', /plain http: is allowed only on loopback/],
    ['ftp://whitebit.com', /not ftp:/],
    ['file:///etc/passwd', /not file:/],
    ['ws://127.0.0.1:1', /not ws:/],
  ])('%s', (url, problem) => {
    const found = baseUrlProblem(url);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  test('live mode refuses a non-https base URL and EU URL; https and loopback http pass', () => {
    refused(live({ baseUrl: 'http://whitebit.com' }), 'exchange.baseUrl', /must be https:/);
    refused(live({ euBaseUrl: 'http://whitebit.eu' }), 'exchange.euBaseUrl', /must be https:/);
    refused(live({ baseUrl: 'ftp://whitebit.com' }), 'exchange.baseUrl', /not ftp:/);
    expect(parseConfig(live({ baseUrl: 'https://whitebit.com' }), {}).exchange.baseUrl).toBe('https://whitebit.com');
    expect(parseConfig(live({ baseUrl: 'http://127.0.0.1:9000' }), {}).exchange.baseUrl).toBe('http://127.0.0.1:9000');
    expect(parseConfig(live({}), {}).exchange.baseUrl).toBe('https://whitebit.com'); // the default
  });

  test('paper mode refuses other schemes too (its exchange section is unused, but a typo is a typo)', () => {
    refused(paper({ baseUrl: 'file:///tmp/x' }), 'exchange.baseUrl', /not file:/);
    expect(parseConfig(paper({ baseUrl: 'http://example.com' }), {}).mode).toBe('paper');
  });

  test('TRADEBOT_BASE_URL is checked the same way', () => {
    expect(() => parseConfig(live({}), { TRADEBOT_BASE_URL: 'http://whitebit.com' })).toThrow(/exchange.baseUrl: must be https:/);
  });
});

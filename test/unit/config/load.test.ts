import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

const minimal = (): Record<string, unknown> => ({
  mode: 'paper',
  paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
  strategies: { enabled: [{ name: 'sma-cross' }] },
});

function expectConfigError(fn: () => unknown, path: string, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const error = caught as ConfigError;
  expect(error.code).toBe('TB_ERR_CONFIG');
  expect(error.message).toContain(path);
  expect(error.message).toMatch(message);
}

describe('config loading', () => {
  test('the shipped paper and live example configs are valid', () => {
    const paper = loadConfig('config/paper.yaml', {});
    expect(paper.mode).toBe('paper');
    expect(paper.strategies.enabled.map((s) => s.name)).toEqual(['sma-cross', 'rsi-reversion', 'donchian-breakout']);
    const live = loadConfig('config/live.example.yaml', { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(live.mode).toBe('live');
    expect(live.redis.url).toBe('redis://127.0.0.1:6379');
  });

  test('defaults are filled and the result is deeply frozen', () => {
    const config = parseConfig(minimal(), {});
    expect(config.exchange.timeoutMs).toBe(10_000);
    expect(config.metrics.port).toBe(9464);
    expect(config.shutdown.graceMs).toBe(10_000);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.exchange.retry)).toBe(true);
    expect(() => {
      (config.log as { level: string }).level = 'debug';
    }).toThrow(TypeError);
  });

  test('an unknown key is named with its full path', () => {
    const raw = minimal();
    raw['risk'] = { defaults: { maxNotionalPerOrdr: '5' } };
    expectConfigError(() => parseConfig(raw, {}), 'risk.defaults.maxNotionalPerOrdr', /unknown setting/);
  });

  test('the wire dialect: venue by default, spec on request; the keys it replaced are refused saying so', () => {
    expect(parseConfig(minimal(), {}).exchange.dialect).toBe('venue');
    expect(parseConfig({ ...minimal(), exchange: { dialect: 'spec' } }, {}).exchange.dialect).toBe('spec');
    expectConfigError(() => parseConfig({ ...minimal(), exchange: { dialect: 'camel' } }, {}), 'exchange.dialect', /venue|spec/);
    expectConfigError(() => parseConfig({ ...minimal(), exchange: { requestFieldStyle: 'camel' } }, {}), 'exchange.requestFieldStyle', /replaced by exchange\.dialect/);
    expectConfigError(() => parseConfig({ ...minimal(), exchange: { ocoListPath: 'docs' } }, {}), 'exchange.ocoListPath', /replaced by exchange\.dialect/);
    expectConfigError(() => parseConfig(minimal(), { TRADEBOT_CONFIG__EXCHANGE__OCO_LIST_PATH: 'spec' }), 'exchange.ocoListPath', /replaced by exchange\.dialect/);
  });

  test('a bad value is named with its path and the problem', () => {
    const raw = minimal();
    raw['risk'] = { defaults: { maxNotionalPerOrder: '1e5' } };
    expectConfigError(() => parseConfig(raw, {}), 'risk.defaults.maxNotionalPerOrder', /plain decimal/);
    const raw2 = minimal();
    raw2['strategies'] = { enabled: [{ name: 'x', interval: '7m' }] };
    expectConfigError(() => parseConfig(raw2, {}), 'strategies.enabled.0.interval', /.+/);
  });

  test('paper.collateral funds the collateral account (empty by default); paper.fill is checked', () => {
    const plain = parseConfig(minimal(), {});
    expect([plain.paper?.collateral, plain.paper?.fill]).toEqual([{}, {}]);
    const shipped = loadConfig('config/paper.yaml', {});
    expect([shipped.paper?.collateral, shipped.paper?.fill]).toEqual([{ USDT: '5000' }, { volumeShare: '0.1', ocoCancelOn: 'execution' }]);
    const raw = minimal();
    raw['paper'] = { ...(raw['paper'] as object), fill: { volumeShare: 1.5 } };
    expectConfigError(() => parseConfig(raw, {}), 'paper.fill.volumeShare', /share in \(0, 1\]/);
    const raw2 = minimal();
    raw2['paper'] = { ...(raw2['paper'] as object), fill: { ocoCancelOn: 'fill' } };
    expectConfigError(() => parseConfig(raw2, {}), 'paper.fill.ocoCancelOn', /.+/);
    const raw3 = minimal();
    raw3['paper'] = { ...(raw3['paper'] as object), fill: { volumeShare: 'off' }, collateral: { USDT: '1e3' } };
    expectConfigError(() => parseConfig(raw3, {}), 'paper.collateral.USDT', /plain decimal/);
  });

  test('strategy guests: the strongest isolation by default, a level or threads on request, anything else named', () => {
    expect(parseConfig(minimal(), {}).strategies.guestIsolation).toBe('auto');
    const raw = minimal();
    raw['strategies'] = { enabled: [{ name: 'sma-cross' }], guestIsolation: 'thread' };
    expect(parseConfig(raw, {}).strategies.guestIsolation).toBe('thread');
    const bad = minimal();
    bad['strategies'] = { enabled: [{ name: 'sma-cross' }], guestIsolation: 'container' };
    expectConfigError(() => parseConfig(bad, {}), 'strategies.guestIsolation', /auto|namespaces|permission|thread/);
  });

  test('secrets in the file are refused', () => {
    const raw = minimal();
    raw['exchange'] = { apiSecret: 'abc' };
    expectConfigError(() => parseConfig(raw, {}), 'exchange.apiSecret', /secrets are not allowed/);
  });

  test('a Redis password in the config file is refused, naming the key and what to use instead; the URL comes from TRADEBOT_REDIS_URL_FILE', () => {
    const raw = minimal();
    raw['redis'] = { url: 'redis://:hunter2-pw@redis.example:6379/0' };
    let message = '';
    try { parseConfig(raw, {}); } catch (error) { message = (error as Error).message; }
    expectConfigError(() => parseConfig(raw, {}), 'redis.url', /password in the config file is refused.*TRADEBOT_REDIS_URL_FILE/);
    expect(message).not.toContain('hunter2');
    raw['redis'] = { url: 'redis://user:pw2@redis.example:6379' };
    expectConfigError(() => parseConfig(raw, {}), 'redis.url', /refused/);
    raw['redis'] = { url: 'redis://redis.example:6379' }; // no password: fine in the file
    expect(parseConfig(raw, {}).redis.url).toBe('redis://redis.example:6379');

    const dir = mkdtempSync(join(tmpdir(), 'tb-redis-url-'));
    const file = join(dir, 'redis-url');
    writeFileSync(file, 'rediss://:s3cret-pw@redis.internal:6380/1\n', { mode: 0o600 });
    const fromFile = parseConfig(minimal(), { TRADEBOT_REDIS_URL_FILE: file });
    expect(fromFile.redis.url).toBe('rediss://:s3cret-pw@redis.internal:6380/1');
    expectConfigError(() => parseConfig(minimal(), { TRADEBOT_REDIS_URL_FILE: file, TRADEBOT_REDIS_URL: 'redis://x:1' }), 'TRADEBOT_REDIS_URL_FILE', /not both/);
    expectConfigError(() => parseConfig(minimal(), { TRADEBOT_REDIS_URL_FILE: join(dir, 'nope') }), 'TRADEBOT_REDIS_URL_FILE', /cannot be read: ENOENT/);
  });

  test('metrics listen on 127.0.0.1 unless configured otherwise (containers set 0.0.0.0)', () => {
    expect(parseConfig(minimal(), {}).metrics.host).toBe('127.0.0.1');
    expect(parseConfig(minimal(), { TRADEBOT_CONFIG__METRICS__HOST: '0.0.0.0' }).metrics.host).toBe('0.0.0.0');
  });

  test('live mode without Redis refuses to start', () => {
    const raw: Record<string, unknown> = { ...minimal(), mode: 'live' };
    delete raw['paper'];
    expectConfigError(() => parseConfig(raw, {}), 'redis.url', /live mode needs Redis/);
  });

  test('kill-switch refresh must leave room for a missed refresh', () => {
    const raw = minimal();
    raw['killSwitch'] = { enabled: true, timeoutSeconds: 30, refreshSeconds: 20 };
    expectConfigError(() => parseConfig(raw, {}), 'killSwitch.refreshSeconds', /half/);
  });

  test('environment overrides: aliases and the generic form, typed', () => {
    const config = parseConfig(minimal(), {
      TRADEBOT_LOG_LEVEL: 'debug',
      TRADEBOT_METRICS_PORT: '9999',
      TRADEBOT_CONFIG__RISK__INITIAL_STATE: 'halted',
      TRADEBOT_CONFIG__EXCHANGE__TIMEOUT_MS: '2500',
      TRADEBOT_CONFIG__KILL_SWITCH__ENABLED: 'true',
    });
    expect(config.log.level).toBe('debug');
    expect(config.metrics.port).toBe(9999);
    expect(config.risk.initialState).toBe('halted');
    expect(config.exchange.timeoutMs).toBe(2500);
    expect(config.killSwitch.enabled).toBe(true);
  });

  test('a bad environment override names the path', () => {
    expectConfigError(() => parseConfig(minimal(), { TRADEBOT_METRICS_PORT: 'ninety' }), 'metrics.port', /.+/);
  });

  test('unreadable and non-YAML files give a clear error', () => {
    expectConfigError(() => loadConfig('/nonexistent/tradebot.yaml', {}), '/nonexistent/tradebot.yaml', /cannot be read/);
    const dir = mkdtempSync(join(tmpdir(), 'tb-config-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'mode: [paper\n');
    expectConfigError(() => loadConfig(file, {}), file, /not valid YAML/);
  });
});

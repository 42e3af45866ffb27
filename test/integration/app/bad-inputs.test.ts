import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DaemonProcess, paperConfig, requireBuild, runCli, strategiesWithBroken, TEST_STRATEGIES, writeConfig } from './daemon-process';

/** A bad config and bad strategies each refuse clearly: exit code 78 and a message naming the key path or the file. */
jest.setTimeout(30_000);

beforeAll(() => requireBuild());

test('run with an invalid config exits 78 naming the key path, before starting anything', async () => {
  const cfg = writeConfig(paperConfig({ risk: { defaults: { priceBand: 'five percent' } }, shutdown: { graceMs: -1 } }));
  try {
    const daemon = new DaemonProcess(['run', '--config', cfg.file], {});
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    expect(daemon.stderr).toContain('TB_ERR_CONFIG');
    expect(daemon.stderr).toContain('risk.defaults.priceBand');
    expect(daemon.stderr).toContain('shutdown.graceMs');
    expect(daemon.lines).toEqual([]); // no logger, no metrics server, no exchange
  } finally {
    cfg.cleanup();
  }
});

test('a live daemon whose orders would go to the EU region (no stop-limit, no OCO there) exits 78 at start-up, saying why', async () => {
  const cfg = writeConfig({ ...paperConfig(), mode: 'live', exchange: { euBaseUrl: 'https://whitebit.eu', primaryRegion: 'eu' } });
  try {
    const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:1', TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' });
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    expect(daemon.stderr).toContain('exchange.primaryRegion');
    expect(daemon.stderr).toContain('does not offer stop-limit or OCO orders (HTTP 453');
    expect(daemon.lines).toEqual([]); // refused before any request
  } finally {
    cfg.cleanup();
  }
});

test('a live daemon without its limits exits 78 at start-up naming every missing key, before anything starts (issue #29 finding 7)', async () => {
  const cfg = writeConfig({ ...paperConfig(), mode: 'live', risk: { defaults: { priceBand: '0.05' } }, killSwitch: { enabled: false } });
  try {
    const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:1', TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' });
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    expect(daemon.stderr).toContain('live mode refuses to start without its limits');
    for (const key of ['risk.defaults.maxNotionalPerOrder', 'risk.defaults.maxNotionalPerMarket', 'risk.dailyLossLimit', 'risk.guardrails.account.drawdown', 'killSwitch.enabled']) expect(daemon.stderr).toContain(`  ${key}: required in live mode`);
    expect(daemon.lines).toEqual([]); // no logger, no metrics server, no exchange
  } finally {
    cfg.cleanup();
  }
});

test('check-config refuses a paper.exchangeUrl in plain http: off loopback (exit 78), accepts loopback (issue #29 finding 5)', () => {
  // The shipped strategies.
  const { paper: _unused, ...rest } = paperConfig({ strategies: { dir: path.join(__dirname, '../../../strategies'), enabled: [{ name: 'sma-cross' }] } });
  const remote = writeConfig({ ...rest, paper: { exchangeUrl: 'http://203.0.113.7:8080' } });
  const loopback = writeConfig({ ...rest, paper: { exchangeUrl: 'http://127.0.0.1:8080' } });
  try {
    const refused = runCli(['check-config', '--config', remote.file], { TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('paper.exchangeUrl: must be https: (plain http: is allowed only on loopback, for the simulator), got http://203.0.113.7:8080');
    const ok = runCli(['check-config', '--config', loopback.file], { TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' });
    expect([ok.code, ok.stdout]).toEqual([0, expect.stringContaining('paper: running simulated exchange http://127.0.0.1:8080')]);
  } finally {
    remote.cleanup();
    loopback.cleanup();
  }
});

test('a secret in the config file is refused', () => {
  const cfg = writeConfig({ ...paperConfig(), exchange: { apiSecret: 'x' } });
  try {
    const r = runCli(['check-config', '--config', cfg.file], {});
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('exchange.apiSecret');
  } finally {
    cfg.cleanup();
  }
});

test('check-config: OK summary for a good config; an enabled strategy that does not exist or whose params are invalid is named', () => {
  const good = writeConfig(paperConfig({ strategies: { dir: strategiesWithBroken(), enabled: [{ name: 'churn' }] } }));
  const unknown = writeConfig(paperConfig({ strategies: { dir: path.dirname(good.file), enabled: [{ name: 'nope' }] } }));
  const badParams = writeConfig(paperConfig({
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn', params: { amount: 5 } }] },
  }));
  try {
    const ok = runCli(['check-config', '--config', good.file], {});
    expect(ok.stderr).toContain('broken.js'); // the strategy dir holds a broken module: check-config says so
    expect(ok.code).toBe(78);

    const r1 = runCli(['check-config', '--config', unknown.file], {});
    expect(r1.code).toBe(78);
    expect(r1.stderr).toContain('no module');
    expect(r1.stderr).toContain('"nope"');

    const r2 = runCli(['check-config', '--config', badParams.file], {});
    expect(r2.code).toBe(78);
    expect(r2.stderr).toContain('churn.js');
    expect(r2.stderr).toContain('parameter amount');

    const shipped = runCli(['check-config', '--config', 'config/paper.yaml'], {});
    expect(shipped.code).toBe(0);
    expect(shipped.stdout).toContain('OK config/paper.yaml');
    expect(shipped.stdout).toContain('strategy sma-cross');
    expect(shipped.stdout).toMatch(/^ {2}strategy guests: (thread|permission|permission-net|namespaces) \(minimum thread\)$/m);
  } finally {
    good.cleanup();
    unknown.cleanup();
    badParams.cleanup();
  }
});

test('run exits 78 when no enabled strategy can be loaded, naming the module file and the reason', async () => {
  const cfg = writeConfig(paperConfig());
  const dir = path.dirname(cfg.file);
  writeFileSync(path.join(dir, 'only.js'), "module.exports = { name: 'churn', markets: ['BTC_USDT'], interval: '1m' };\n");
  const file = path.join(dir, 'run.yaml');
  writeFileSync(file, JSON.stringify(paperConfig({ strategies: { dir, enabled: [{ name: 'churn' }] } })));
  try {
    const daemon = new DaemonProcess(['run', '--config', file], {});
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    const reported = daemon.lines.find((l) => l.msg.startsWith('strategy not loaded'));
    expect(reported?.['file']).toBe(path.join(dir, 'only.js'));
    expect(reported?.msg).toMatch(/params|onCandle/);
    expect(daemon.lines.some((l) => l.level === 'fatal' && l.msg.includes('TB_ERR_CONFIG'))).toBe(true);
  } finally {
    cfg.cleanup();
  }
});

test('an unknown strategy parameter (a typo) is refused by check-config and at start-up, naming the key and the known ones', async () => {
  const cfg = writeConfig(paperConfig({
    strategies: { dir: path.join(__dirname, 'strategies'), enabled: [{ name: 'churn', params: { amuont: '0.002' } }] },
  }));
  try {
    const check = runCli(['check-config', '--config', cfg.file], {});
    expect(check.code).toBe(78);
    expect(check.stderr).toContain('strategy churn: unknown parameter "amuont" (known: amount)');

    const daemon = new DaemonProcess(['run', '--config', cfg.file], {});
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    const fatal = daemon.lines.find((l) => l.level === 'fatal');
    expect(fatal?.msg).toContain('TB_ERR_CONFIG');
    expect(fatal?.msg).toContain('unknown parameter "amuont" (known: amount)');
    expect(daemon.lines.some((l) => l.msg === 'tradebot started')).toBe(false);
  } finally {
    cfg.cleanup();
  }
});

test('check-config in live mode: a plain-http exchange URL and an API key with a line break are refused (exit 78), never echoing the secret', () => {
  const base = {
    ...paperConfig(), mode: 'live', redis: { url: 'redis://127.0.0.1:6379' },
    risk: { defaults: { maxNotionalPerOrder: '1000', maxNotionalPerMarket: '3000' }, dailyLossLimit: '100', guardrails: { account: { drawdown: [{ max: '100', window: '24h' }] } } }, killSwitch: { enabled: true },
  };
  const plain = writeConfig({ ...base, exchange: { baseUrl: 'http://whitebit.com' } });
  const good = writeConfig({ ...base, exchange: { baseUrl: 'https://whitebit.com' } });
  try {
    const r1 = runCli(['check-config', '--config', plain.file], { TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' });
    expect(r1.code).toBe(78);
    expect(r1.stderr).toContain('exchange.baseUrl: must be https:');
    const r2 = runCli(['check-config', '--config', good.file], { TRADEBOT_API_KEY: 'key\r\nX-Injected: 1', TRADEBOT_API_SECRET: 'live-secret-never-print' });
    expect(r2.code).toBe(78);
    expect(r2.stderr).toContain('TRADEBOT_API_KEY contains a line break');
    const r3 = runCli(['check-config', '--config', good.file], { TRADEBOT_API_KEY: 'key', TRADEBOT_API_SECRET: '   ' });
    expect(r3.code).toBe(78);
    expect(r3.stderr).toContain('TRADEBOT_API_SECRET is empty');
    expect(r2.stderr + r3.stderr).not.toContain('live-secret-never-print');
  } finally {
    plain.cleanup();
    good.cleanup();
  }
});

test('check-config of a live config whose guests would run as threads exits 78 naming strategies.minGuestIsolation; an explicit minimum is shown', () => {
  const live = {
    ...paperConfig(), mode: 'live', redis: { url: 'redis://127.0.0.1:6379' }, exchange: { baseUrl: 'https://whitebit.com' },
    // The shipped strategies.
    strategies: { dir: path.join(__dirname, '../../../strategies'), enabled: [{ name: 'sma-cross' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', maxNotionalPerMarket: '3000' }, dailyLossLimit: '100', guardrails: { account: { drawdown: [{ max: '100', window: '24h' }] } } }, killSwitch: { enabled: true },
  };
  const threads = writeConfig({ ...live, strategies: { ...live.strategies, guestIsolation: 'thread' } });
  const threadsAllowed = writeConfig({ ...live, strategies: { ...live.strategies, guestIsolation: 'thread', minGuestIsolation: 'thread' } });
  const creds = { TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' };
  try {
    const refused = runCli(['check-config', '--config', threads.file], creds);
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('strategies.minGuestIsolation: strategy guests would run at "thread" here, below the required "permission-net"');
    expect(refused.stdout).toBe('');
    // The operator lowered the floor on purpose: accepted, and the summary says so.
    const lowered = runCli(['check-config', '--config', threadsAllowed.file], creds);
    expect([lowered.code, lowered.stderr]).toEqual([0, '']);
    expect(lowered.stdout).toContain('  strategy guests: thread (minimum thread)\n');
  } finally {
    threads.cleanup();
    threadsAllowed.cleanup();
  }
});

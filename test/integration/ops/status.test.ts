import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import Redis from 'ioredis';
import { resolveIsolation } from '../../../src/strategy/guest/sandbox';
import { freePort } from '../../helpers/redis-server';
import { paperConfig, requireBuild, runCli, writeConfig } from '../app/daemon-process';
import { httpGet, OpsDaemon, ROOT, waitFor } from './ops-daemon';

/**
 * `tradebot status` against a running paper daemon with Redis: healthy (exit 0) with its readiness,
 * trading state (applied and stored), leases, open orders and last candles; a paused daemon is still
 * healthy; a daemon that is gone is not (exit 1). The guest isolation level in force is shown in
 * both outputs: the one this host gives (`auto`), as the daemon logged at start. `tradebot --version`
 * prints package.json's version.
 */
jest.setTimeout(60_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbtest-ops-status-${process.pid}-${Date.now()}`;
let daemon: OpsDaemon;
let config: ReturnType<typeof writeConfig>;
let redis: Redis;
let env: NodeJS.ProcessEnv;
let metricsUrl: string;

interface Report {
  healthy: boolean; problems: string[];
  daemon: { ready: boolean; tradingState?: string; store?: string; version?: string; guestIsolation?: string; checks: Record<string, { ok: boolean }> };
  storedTradingState?: { state: string; reason: string };
  leases: { strategy: string; market: string; owner?: string }[];
  openOrders: { strategy: string; count: number }[];
  candles: { market: string; interval: string; lastClose: string; lagSeconds: number }[];
}
const status = (...args: string[]): { code: number | null; report: Report; stdout: string } => {
  const r = runCli(['status', '--config', config.file, ...args], env);
  return { code: r.code, stdout: r.stdout, report: (args.includes('--json') ? JSON.parse(r.stdout) : {}) as Report };
};

beforeAll(async () => {
  requireBuild();
  redis = new Redis(REDIS_URL);
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}`;
  config = writeConfig(paperConfig({ paper: { ...(paperConfig()['paper'] as object), speed: 300 }, metrics: { port, host: '127.0.0.1' } }));
  env = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX };
  daemon = new OpsDaemon(['run', '--config', config.file], env);
  const d = daemon;
  await waitFor(async () => {
    if (!d.running) throw new Error(`daemon exited\n${d.tail()}`);
    return (await httpGet(`http://127.0.0.1:${port}/readyz`))?.status === 200 ? true : undefined;
  }, 30_000, () => `not ready\n${d.tail()}`);
});

afterAll(async () => {
  await daemon?.kill();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  config?.cleanup();
});

test('--version prints the package version', () => {
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  expect(runCli(['--version'], {}).stdout.trim()).toBe(version);
});

test('healthy daemon: exit 0, readiness, trading state, leases, open orders and candles; paused is still healthy', async () => {
  // Wait until it traded (read from its metrics: cheaper than a CLI process per poll), so the journal has something to show.
  await waitFor(async () => (/^tradebot_open_orders\{strategy="churn",market="BTC_USDT"\} [1-9]/m.test((await httpGet(`${metricsUrl}/metrics`))?.body ?? '') ? true : undefined), 30_000, () => daemon.tail());
  const { code, report } = status('--json');
  expect(code).toBe(0);
  expect(report).toMatchObject({ healthy: true, problems: [], daemon: { ready: true, tradingState: 'active', store: 'redis' } });
  expect(Object.keys(report.daemon.checks).sort()).toEqual(['exchange', 'reconciled', 'redis']);
  // The paper config leaves strategies.guestIsolation at auto: the strongest level this host gives.
  const level = resolveIsolation('auto');
  expect(typeof level).toBe('string');
  expect(report.daemon.guestIsolation).toBe(level);
  expect(daemon.lines().find((l) => l.msg.startsWith('strategy guests isolated at level'))).toMatchObject({ isolation: level });
  expect(report.leases).toEqual([expect.objectContaining({ strategy: 'churn', market: 'BTC_USDT', owner: expect.stringMatching(/:/) })]);
  expect(report.openOrders[0]).toMatchObject({ strategy: 'churn' });
  expect(report.candles).toEqual([expect.objectContaining({ market: 'BTC_USDT', interval: '1m', lastClose: expect.stringMatching(/^20\d\d-/) })]);

  expect(runCli(['pause', '--config', config.file, '--reason', 'status test'], env).code).toBe(0);
  await waitFor(async () => (/^tradebot_trading_state\{state="halted"\} 1/m.test((await httpGet(`${metricsUrl}/metrics`))?.body ?? '') ? true : undefined), 10_000, () => daemon.tail());
  const paused = status('--json');
  expect(paused.code).toBe(0);
  expect(paused.report.storedTradingState).toMatchObject({ state: 'halted', reason: 'status test' });
  const text = status();
  expect(text.code).toBe(0);
  expect(text.stdout.split('\n')[0]).toMatch(/^HEALTHY /);
  expect(text.stdout).toMatch(/trading +halted +\(stored: halted, "status test"/);
  expect(text.stdout).toMatch(new RegExp(`^isolation +${String(resolveIsolation('auto'))}$`, 'm'));
});

test('a daemon that is gone: exit 1, saying the endpoint does not answer', async () => {
  await daemon.kill();
  const { code, report } = status('--json');
  expect(code).toBe(1);
  expect(report.healthy).toBe(false);
  expect(report.problems.join('\n')).toMatch(/does not answer/);
  expect(status().stdout.split('\n')[0]).toMatch(/^NOT HEALTHY /);
});

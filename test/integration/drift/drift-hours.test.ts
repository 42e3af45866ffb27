import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { storeKeysFor } from '../../../src/app/account-store';
import { PAPER_API_KEY } from '../../../src/app/paper-key';
import { wallToMarket } from '../../../src/drift/outcomes';
import { RedisDeploymentLog } from '../../../src/store/deployment-log';
import { RedisOrderStore } from '../../../src/store/order-store';
import { DaemonProcess, paperConfig, requireBuild, ROOT, type LogLine } from '../app/daemon-process';
import { RedisTestContext, testRedisUrl } from '../store/redis-test-context';

/**
 * Issue 30's drift "Done when", on a strategy that is not one of the examples (stop-limit entries and
 * OCO exits on two markets, 1m): a paper run with Redis for three market hours, the daemon's periodic
 * check every 30 market minutes, then `tradebot drift` over the whole run (`--run last`, no --from to
 * guess); and a shorter run with a reload and a promote of changed code inside the window.
 */
jest.setTimeout(300_000);

const FIXTURE = path.join(ROOT, 'test/fixtures/drift-oco/pair-dip.ts');
const ctx = new RedisTestContext();
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
let daemon: DaemonProcess | undefined;
let dir: string | undefined;
let prefix: string | undefined;

beforeAll(() => requireBuild());
afterEach(async () => {
  await daemon?.kill();
  await ctx.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

interface Setup { config: string; module: string; env: NodeJS.ProcessEnv }

function setup(speed: number): Setup {
  dir = mkdtempSync(path.join(tmpdir(), 'tradebot-drift-hours-'));
  const strategies = path.join(dir, 'strategies');
  const module = path.join(strategies, 'pair-dip.ts');
  mkdirSync(strategies);
  copyFileSync(FIXTURE, module);
  prefix = ctx.configPrefix('tbhours');
  const base = paperConfig();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, stringify({
    ...base,
    paper: {
      speed, seed: 3,
      markets: [
        { market: 'BTC_USDT', data: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') },
        { market: 'ETH_USDT', data: path.join(ROOT, 'config/data/eth_usdt-1m-sample.csv') },
      ],
      balances: { USDT: '100000', BTC: '1', ETH: '10' },
      collateral: { USDT: '50000' },
    },
    strategies: { dir: strategies, stateDir: path.join(dir, 'state'), enabled: [{ name: 'pair-dip' }] },
    drift: { heartbeatSeconds: 1, intervalMinutes: 30, windowMinutes: 40 },
  }));
  return { config, module, env: { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_REDIS_PREFIX: prefix } };
}

interface DriftJson {
  window: { from: number; to: number };
  verdict: { unexplained: number };
  counts: { matched: number; onlyLive: Record<string, number>; onlyReplay: Record<string, number>; different: Record<string, number> };
  runs: { runId: string }[];
  strategies: { liveOrders: number; differences: { kind: string; cause: string; detail: string; candleTime: number }[] }[];
}

async function driftOfLastRun(s: Setup): Promise<{ report: DriftJson; stderr: string }> {
  const drift = new DaemonProcess(['drift', '--config', s.config, '--json'], s.env);
  const exit = await drift.exit();
  if (exit.code !== 0) throw new Error(`drift exited ${exit.code}: ${drift.stderr}\n${JSON.stringify(drift.lines[0]).slice(0, 3000)}`);
  return { report: drift.lines[0] as unknown as DriftJson, stderr: drift.stderr };
}

/** The paper account's journal and deployment log, read from Redis as the CLI does. */
async function records(): Promise<{ journal: RedisOrderStore; log: RedisDeploymentLog }> {
  const redis = await ctx.client();
  const keys = storeKeysFor('paper', PAPER_API_KEY, prefix!);
  return { journal: new RedisOrderStore({ redis, keys }), log: new RedisDeploymentLog(redis, keys) };
}

test('three market hours of stop-limit entries and OCO exits on two markets: every periodic check runs and is clean, the whole run has 0 unexplained, no fill before its candle', async () => {
  const s = setup(180);
  daemon = new DaemonProcess(['run', '--config', s.config], s.env);
  const d = daemon;
  await d.waitForLine(msg('tradebot started'), 60_000, 'start');
  const startedMs = Date.now();
  // 180 market minutes at 180x: 60 s.
  await new Promise((r) => setTimeout(r, 61_000));
  await d.waitForLine((l) => l.msg === 'drift check done' && d.count(msg('drift check done')) >= 5, 60_000, 'five periodic checks');
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
  const wallSec = (Date.now() - startedMs) / 1000;

  // Every periodic check ran and found nothing unexplained; none failed.
  const checks = d.lines.filter(msg('drift check done'));
  console.log(`periodic checks over ${wallSec.toFixed(0)} s: ${checks.map((c) => `${c['from']}..${c['to']} unexplained ${c['unexplained']}`).join('; ')}`);
  expect(d.lines.filter(msg('drift check failed'))).toEqual([]);
  expect(checks.every((c) => c['unexplained'] === 0)).toBe(true);

  // The whole run, found by itself: its span printed, 0 unexplained.
  const { report, stderr } = await driftOfLastRun(s);
  expect(stderr).toMatch(/^run \S+: \S+Z \.\. \S+Z market time \(stopped\)$/m);
  expect(report.runs).toHaveLength(1);
  const hours = (report.window.to - report.window.from) / 3600;
  const differences = report.strategies.flatMap((x) => x.differences);
  console.log(`whole run: ${hours.toFixed(2)} market hours, ${report.strategies[0]!.liveOrders} live orders, ${JSON.stringify(report.counts)}`);
  expect(hours).toBeGreaterThanOrEqual(3);
  // Enough orders for the comparison to mean something; how many depends on the machine's speed at 180x (14-20 seen).
  expect(report.strategies[0]!.liveOrders).toBeGreaterThanOrEqual(10);
  expect(differences.filter((x) => x.cause === 'unexplained')).toEqual([]);
  expect(report.verdict.unexplained).toBe(0);

  // Every live fill at or after its order's candle (market time, as journaled).
  const { journal, log } = await records();
  const rows = await journal.listAll(5000);
  const fills = rows.flatMap((r) => r.history.filter((h) => h.to === 'filled' || h.to === 'partially_filled').map((h) => ({ r, h })));
  expect(fills.length).toBeGreaterThanOrEqual(8);
  expect(fills.filter(({ r, h }) => h.marketMs === undefined || h.marketMs < (r.candleTime + 60) * 1000).map(({ r }) => r.clientOrderId)).toEqual([]);
  // What the estimate from the run's marks (all there was before) would have said: its error, for the record.
  const estimate = wallToMarket(await log.runs(0, Number.MAX_SAFE_INTEGER));
  const errors = fills.map(({ h }) => (estimate(h.atMs) ?? NaN) - h.marketMs!);
  console.log(`fill times: ${fills.length} fills; the wall-to-market estimate is off by ${Math.min(...errors) / 1000} .. ${Math.max(...errors) / 1000} market s`);
});

test('a reload and a promote of changed code inside the window: the differences they make are version_change, none unexplained', async () => {
  const s = setup(180);
  daemon = new DaemonProcess(['run', '--config', s.config], s.env);
  const d = daemon;
  await d.waitForLine(msg('tradebot started'), 60_000, 'start');
  await new Promise((r) => setTimeout(r, 10_000)); // 30 market minutes of v1
  // v2 buys less: every entry after the promote differs from what v1 (the replay of v1's code would) place.
  writeFileSync(s.module, readFileSync(s.module, 'utf8').replace(".default('200')", ".default('150')"));
  const reload = new DaemonProcess(['reload', '--config', s.config], s.env);
  await d.waitForLine(msg('strategy reloaded: new version runs as a shadow (its intents are recorded, not sent)'), 30_000, 'reload');
  expect((await reload.exit()).code).toBe(0);
  await new Promise((r) => setTimeout(r, 2_000));
  const promote = new DaemonProcess(['promote', 'pair-dip', '--config', s.config, '--timeout', '10'], s.env);
  expect((await promote.exit()).code).toBe(0);
  await d.waitForLine(msg('strategy version promoted'), 10_000, 'promote');
  await new Promise((r) => setTimeout(r, 10_000)); // 30 market minutes of v2
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);

  const { report } = await driftOfLastRun(s);
  const differences = report.strategies.flatMap((x) => x.differences);
  console.log(`reload+promote run: ${JSON.stringify(report.counts)}; first version_change: ${differences.find((x) => x.cause === 'version_change')?.detail}`);
  expect(differences.filter((x) => x.cause === 'unexplained')).toEqual([]);
  expect(differences.filter((x) => x.cause === 'version_change').length).toBeGreaterThan(0);
});

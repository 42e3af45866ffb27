import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { rowToCandle } from '../../../src/candle-files/csv-candles';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { storeKeysFor } from '../../../src/app/account-store';
import { RedisDeploymentLog } from '../../../src/store/deployment-log';
import { DaemonProcess, requireBuild, ROOT, TEST_STRATEGIES, writeConfig, type LogLine } from '../app/daemon-process';
import { RedisTestContext, testRedisUrl } from '../store/redis-test-context';

/**
 * The drift check end to end: a paper daemon (`tradebot run`, Redis) against a standalone simulator
 * that outlives it, SIGKILLed twice and restarted, then stopped cleanly; `tradebot drift` over the
 * whole stretch replays the candles the daemon recorded and compares with its journal. Every
 * difference must have a cause: the candles missed while it was dead are "daemon down", and nothing
 * is unexplained.
 */
jest.setTimeout(240_000);

const API_KEY = 'drift-paper-key';
const API_SECRET = 'drift-paper-secret';
const CSV = path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv');
const FIRST_CANDLE = 1631917380;

const ctx = new RedisTestContext();
let sim: SimulatedExchange | undefined;
let running: DaemonProcess | undefined;
let prefix: string | undefined;

beforeAll(() => requireBuild());
afterEach(async () => {
  await running?.kill();
  await sim?.close();
  await ctx.cleanup();
});

const started = (l: LogLine): boolean => l.msg === 'tradebot started';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a paper run with two SIGKILLs and restarts: every difference explained, the missed candles "daemon down"', async () => {
  prefix = ctx.configPrefix('tbdrift');
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' },
    markets: [{ name: 'BTC_USDT', csvPath: CSV }], start: FIRST_CANDLE + 600, speed: 60, seed: 7,
  });
  const cfg = writeConfig({
    mode: 'paper',
    paper: { exchangeUrl: sim.url },
    redis: { keyPrefix: prefix },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    reconcile: { intervalSeconds: 1 },
    metrics: { port: 0, host: '127.0.0.1' },
    // The daemon's own check every 3 market minutes over the last 10 (a child process), exported as metrics.
    drift: { heartbeatSeconds: 1, intervalMinutes: 3, windowMinutes: 10 },
    log: { level: 'info' },
    shutdown: { graceMs: 5000 },
  });
  const env = { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  const out = mkdtempSync(path.join(tmpdir(), 'tradebot-drift-'));
  try {
    for (let run = 0; run < 3; run++) {
      running = new DaemonProcess(['run', '--config', cfg.file], env);
      await running.waitForLine(started, 60_000, 'tradebot started');
      await sleep(6_000); // six 1m candles at speed 60
      if (run < 2) {
        await running.kill(); // SIGKILL: no stop record
        await sleep(2_500); // two or three candles nobody sees live
      } else {
        // The periodic check has run (a child process) and its report is on /metrics.
        const port = Number((await running.waitForLine((l) => l.msg === 'metrics server listening', 1000))['port']);
        const done = await running.waitForLine((l) => l.msg === 'drift check done', 30_000, 'a periodic drift check');
        expect(done['unexplained']).toBe(0);
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics).toMatch(/^tradebot_drift_checks_total\{verdict="ok"\} [1-9]/m);
        expect(metrics).toMatch(/^tradebot_drift_unexplained 0$/m);
        expect(metrics).toMatch(/^tradebot_drift_matched\{strategy="churn"\} \d+/m);
        expect(metrics).toMatch(/^tradebot_drift_check_cpu_seconds [0-9.]+$/m);
        console.log(`periodic drift check: ${JSON.stringify(done)}`);
        running.signal('SIGTERM');
        expect((await running.exit()).code).toBe(0);
      }
    }
    sim.setSpeed(0);

    const log = new RedisDeploymentLog(await ctx.client(), storeKeysFor('paper', API_KEY, prefix));
    const live = (await log.candles('BTC_USDT', '1m', 0, 2_000_000_000)).filter((c) => c.source === 'live');
    expect(live.length).toBeGreaterThan(10);
    const from = live[0]!.time;
    const to = live[live.length - 1]!.time + 60;
    const runs = await log.runs(from * 1000, to * 1000);
    expect(runs).toHaveLength(3);
    expect(runs.filter((r) => r.stoppedMarketMs === undefined)).toHaveLength(2);

    // A child process, awaited (not spawnSync): the simulator in this process answers its kline requests.
    const drift = new DaemonProcess(['drift', '--config', cfg.file, '--from', String(from), '--to', String(to), '--out', out, '--venue-check', '--json'], env);
    const exit = await drift.exit();
    expect(drift.stderr).not.toMatch(/TB_ERR|error:/);
    expect(exit.code).toBe(0);
    const report = drift.lines[0] as unknown as {
      verdict: { unexplained: number; ok: boolean };
      counts: { matched: number; onlyReplay: Record<string, number>; onlyLive: Record<string, number>; different: Record<string, number> };
      downtime: unknown[]; dataDrift: { checked: boolean; corrected: number };
      strategies: { versionMatches: boolean; paramsFrom: string; liveVersions: string[]; differences: { kind: string; cause: string; detail: string; candleTime: number }[] }[];
    };
    // The journal names the code and parameters that ran; the replay ran the same.
    expect(report.strategies[0]).toMatchObject({ versionMatches: true, paramsFrom: 'journal' });
    expect(report.strategies[0]!.liveVersions).toHaveLength(1);
    const differences = report.strategies.flatMap((s) => s.differences);
    console.log(`drift paper test: ${report.counts.matched} matched; ${JSON.stringify(report.counts)}; downtime ${JSON.stringify(report.downtime)}`);
    expect(differences.filter((d) => d.cause === 'unexplained')).toEqual([]);
    expect(report.verdict).toEqual({ unexplained: 0, threshold: 0, ok: true });
    expect(report.downtime.length).toBeGreaterThanOrEqual(2);
    expect(report.counts.onlyReplay['daemon_down']).toBeGreaterThan(0);
    expect(report.counts.matched).toBeGreaterThan(0);
    expect(report.dataDrift).toMatchObject({ checked: true, corrected: 0 });
    const html = readFileSync(path.join(out, 'drift.html'), 'utf8');
    expect(html).toContain('path class="line live"');
    expect(html).toContain('path class="line replay"');
    expect(html).toContain('daemon down');

    // Windows that start mid-run, with stock bought and orders open: the replay starts at the last
    // moment the strategy was flat with nothing open (its real state is then balances alone).
    for (const k of [3, Math.floor(live.length / 2)]) {
      const start = live[k]!.time;
      const mid = new DaemonProcess(['drift', '--config', cfg.file, '--from', String(start), '--to', String(to), '--json'], env);
      expect((await mid.exit()).code).toBe(0);
      const r = mid.lines[0] as unknown as DriftReportJson & { strategies: { replayFrom: number }[] };
      console.log(`drift from candle ${k}: replay from ${start - r.strategies[0]!.replayFrom} s earlier; ${JSON.stringify(r.counts)}`);
      expect(r.verdict.unexplained).toBe(0);
      expect(r.strategies[0]!.replayFrom).toBeLessThanOrEqual(start);
      expect(r.strategies[0]!.differences.every((d) => d.candleTime >= start)).toBe(true);
    }
  } finally {
    cfg.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
});

interface DriftReportJson {
  verdict: { unexplained: number; ok: boolean };
  counts: { matched: number; onlyReplay: Record<string, number>; onlyLive: Record<string, number>; different: Record<string, number> };
  dataDrift: { checked: boolean; corrected: number };
  strategies: { differences: { kind: string; cause: string; detail: string; candleTime: number }[] }[];
}

test('injected faults show with their cause, never unexplained: venue latency, a candle served differently, a pause', async () => {
  prefix = ctx.configPrefix('tbdrift');
  const exchange = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' },
    markets: [{ name: 'BTC_USDT', csvPath: CSV }], start: FIRST_CANDLE + 600, speed: 30, seed: 7,
  });
  sim = exchange;
  const cfg = writeConfig({
    mode: 'paper', paper: { exchangeUrl: exchange.url }, redis: { keyPrefix: prefix },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    reconcile: { intervalSeconds: 1 }, metrics: { port: 0, host: '127.0.0.1' }, drift: { heartbeatSeconds: 1 },
    log: { level: 'info' }, shutdown: { graceMs: 5000 },
  });
  const env = { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  try {
    running = new DaemonProcess(['run', '--config', cfg.file], env);
    await running.waitForLine(started, 60_000, 'tradebot started');
    await sleep(4_000);
    // 1. Latency: orders reach the venue 2.5 s (75 market s) late, after their candle's next one was matched.
    exchange.faults.configure({ latencyMs: 2500, endpoints: ['stopLimit'] });
    await sleep(8_000);
    exchange.faults.configure({ latencyMs: 0, endpoints: undefined });
    await sleep(2_000);
    // 2. A candle two minutes ahead served with a wider range than the file (which the venue fills on), corrected later.
    const ahead = Math.floor(exchange.clock.nowMs() / 60_000) * 60 + 120;
    const real = rowToCandle(exchange.feed.source('BTC_USDT')!.rowsBetween(ahead, ahead + 60)[0]!);
    exchange.feed.misserve('BTC_USDT', ahead, { high: real.high.times('1.03').toFixed(2), low: real.low.times('0.97').toFixed(2) });
    await sleep(8_000);
    // 3. A pause (SIGUSR1 halts new orders), then `tradebot resume` (a signal never resumes), which waits for the daemon.
    running.signal('SIGUSR1');
    await sleep(5_000);
    const resume = new DaemonProcess(['resume', '--config', cfg.file], env);
    expect((await resume.exit()).code).toBe(0);
    await sleep(4_000);
    running.signal('SIGTERM');
    expect((await running.exit()).code).toBe(0);
    exchange.setSpeed(0);
    exchange.feed.clearMisserved(); // the venue's history now shows the file's candle

    const log = new RedisDeploymentLog(await ctx.client(), storeKeysFor('paper', API_KEY, prefix));
    const live = (await log.candles('BTC_USDT', '1m', 0, 2_000_000_000)).filter((c) => c.source === 'live');
    const from = live[0]!.time;
    const to = live[live.length - 1]!.time + 60;
    expect(live.find((c) => c.time === ahead)?.high).toBe(real.high.times('1.03').toFixed(2));
    const drift = new DaemonProcess(['drift', '--config', cfg.file, '--from', String(from), '--to', String(to), '--venue-check', '--json'], env);
    const exit = await drift.exit();
    expect(drift.stderr).toBe('');
    const report = drift.lines[0] as unknown as DriftReportJson;
    const differences = report.strategies.flatMap((s) => s.differences);
    console.log(`drift faults test: ${JSON.stringify(report.counts)}\n${differences.map((d) => `${d.candleTime} ${d.kind} ${d.cause}: ${d.detail}`).join('\n')}`);
    expect(differences.filter((d) => d.cause === 'unexplained')).toEqual([]);
    expect(exit.code).toBe(0);
    const by = (cause: string): number => report.counts.onlyLive[cause]! + report.counts.onlyReplay[cause]! + report.counts.different[cause]!;
    expect(by('latency')).toBeGreaterThan(0);
    expect(report.dataDrift.corrected).toBe(1);
    expect(report.counts.onlyReplay['denied_live']).toBeGreaterThan(0);
    expect(differences.some((d) => d.cause === 'denied_live' && d.detail.includes('trading_state'))).toBe(true);
  } finally {
    cfg.cleanup();
  }
});

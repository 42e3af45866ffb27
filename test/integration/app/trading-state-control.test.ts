import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { runCli } from '../../helpers/run-cli';
import { DaemonProcess, paperConfig, requireBuild, writeConfig, type LogLine } from './daemon-process';

/**
 * Issue #29 findings 2 and 3 against the real daemon (`node dist/src/main.js run`, paper mode) and
 * the real CLI as child processes: a bare signal never resumes trading, control records are
 * ordered by the store (not by the writer's clock), and `tradebot pause|resume` waits for the
 * daemon's acknowledgement.
 */
jest.setTimeout(120_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
const HOUR_MS = 3_600_000;

async function metrics(d: DaemonProcess): Promise<string> {
  const port = d.lines.find(msg('metrics server listening'))!['port'] as number;
  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return scrape().catch(() => scrape());
}

async function metricState(d: DaemonProcess): Promise<string | undefined> {
  return /^tradebot_trading_state\{state="(\w+)"\} 1$/m.exec(await metrics(d))?.[1];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let tmp: string;
let slowClock: string;
let daemon: DaemonProcess | undefined;

beforeAll(() => {
  requireBuild();
  tmp = mkdtempSync(path.join(tmpdir(), 'tb-trading-state-'));
  // A CLI host whose clock is an hour behind: Date.now() (and new Date()) shifted back.
  slowClock = path.join(tmp, 'slow-clock.js');
  writeFileSync(slowClock, `const real = Date.now; Date.now = () => real() - ${HOUR_MS};\n`);
});

afterEach(async () => {
  await daemon?.kill();
  daemon = undefined;
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('with Redis', () => {
  const PREFIX = `tbtest-trading-state-${process.pid}-${Date.now()}`;
  let redis: Redis;
  let config: ReturnType<typeof writeConfig>;
  let n = 0;
  /** Each test its own account namespace (prefix): nothing stored, no other daemon's reports. */
  let ENV: Record<string, string>;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    const base = paperConfig();
    config = writeConfig({ ...base, risk: { ...(base['risk'] as object), initialState: 'halted' } });
  });

  beforeEach(() => {
    n += 1;
    ENV = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: `${PREFIX}-${n}` };
  });

  afterAll(async () => {
    const keys = await redis.keys(`${PREFIX}-*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    config.cleanup();
  });

  const storedState = async (d: DaemonProcess): Promise<Record<string, string>> => {
    const account = d.lines.find(msg('Redis connected'))!['account'] as string;
    // A paper deployment's keys (account-store.ts: paper never shares a live namespace).
    return redis.hgetall(`${ENV['TRADEBOT_REDIS_PREFIX']}:paper:{${account}}:control:trading-state`);
  };

  const start = async (): Promise<DaemonProcess> => {
    daemon = new DaemonProcess(['run', '--config', config.file], ENV);
    await daemon.waitForLine(msg('tradebot started'), 30_000, 'start');
    return daemon;
  };

  /** Polls the daemon's metric (the old CLI did not wait for the daemon). */
  const until = async (d: DaemonProcess, state: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while ((await metricState(d)) !== state) {
      if (Date.now() > deadline) throw new Error(`daemon not ${state} within 10 s\n${d.tail()}`);
      await sleep(200);
    }
  };

  test('SIGUSR2 and SIGHUP leave a daemon started halted (risk.initialState) and a paused one halted; SIGUSR1 still pauses; --pid cannot resume', async () => {
    const d = await start();
    expect(d.lines.find(msg('trading state at start'))).toMatchObject({ state: 'halted', reason: 'config risk.initialState' });

    // 1. Started halted by the config, nothing stored: a guest's SIGUSR2 or SIGHUP changes nothing.
    d.signal('SIGUSR2');
    d.signal('SIGHUP');
    await sleep(2500); // more than two polls of the store
    expect(await metricState(d)).toBe('halted');
    expect(await storedState(d)).toEqual({});
    expect(d.count(msg('trading state changed'))).toBe(0);
    expect(d.count((l) => l.msg.startsWith('strategy reloaded'))).toBe(0);
    expect(d.lines.find((l) => l.msg.startsWith('SIGUSR2 ignored'))?.msg).toContain('tradebot resume');
    expect(d.lines.find((l) => l.msg.startsWith('SIGHUP ignored'))?.msg).toContain('tradebot reload');

    // 2. Resumed by the operator (through the store), then SIGUSR1 still pauses, stored with the store's next seq.
    expect((await runCli(['resume', '--config', config.file, '--reason', 'checked'], ENV)).code).toBe(0);
    await until(d, 'active');
    d.signal('SIGUSR1');
    await until(d, 'halted');
    await sleep(500);
    expect(await storedState(d)).toMatchObject({ state: 'halted', reason: 'signal SIGUSR1', seq: '2' });

    // 3. Paused: SIGUSR2 and SIGHUP leave it paused, in the store and in the daemon.
    d.signal('SIGUSR2');
    d.signal('SIGHUP');
    await sleep(2500);
    expect(await metricState(d)).toBe('halted');
    expect(await storedState(d)).toMatchObject({ state: 'halted', seq: '2' });

    // 4. `resume --pid` and `reduce-only --pid` are refused with a reason; `reload --pid` too.
    for (const command of ['resume', 'reduce-only']) {
      const refused = await runCli([command, '--config', config.file, '--pid', String(d.pid)], ENV);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${command} --pid is refused: a signal cannot loosen the trading state`);
    }
    const reload = await runCli(['reload', '--config', config.file, '--pid', String(d.pid)], ENV);
    expect([reload.code, reload.stderr]).toEqual([1, expect.stringContaining('reload --pid is refused: the daemon ignores SIGHUP')]);
    await sleep(1500);
    expect(await metricState(d)).toBe('halted');
  });

  test('a pause from a CLI host whose clock is an hour behind the last applied record is applied (ordered by the store\'s seq)', async () => {
    const d = await start();
    expect((await runCli(['resume', '--config', config.file], ENV)).code).toBe(0);
    await until(d, 'active');
    const slow = await runCli(['pause', '--config', config.file, '--reason', 'slow clock'], { ...ENV, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --require ${JSON.stringify(slowClock)}` });
    expect(slow.code).toBe(0);
    await until(d, 'halted');
    const stored = await storedState(d);
    expect(stored).toMatchObject({ state: 'halted', reason: 'slow clock', seq: '2' });
    expect(Number(stored['atMs'])).toBeLessThan(Date.now() - HOUR_MS + 60_000); // really stamped an hour behind
    expect(d.lines.filter(msg('trading state changed')).at(-1)).toMatchObject({ state: 'halted', seq: 2, reason: 'operator: slow clock' });
  });

  test('`tradebot resume` waits for the daemon\'s acknowledgement and prints what it applied; with no daemon it exits 2 saying so, and the record applies at start', async () => {
    const d = await start();
    const resumed = await runCli(['resume', '--config', config.file, '--reason', 'checked'], ENV);
    expect([resumed.code, resumed.stderr]).toEqual([0, '']);
    expect(resumed.stdout).toMatch(/^trading state -> active stored \(seq 1, account \w+\): applied by 1 running replica within [\d.]+ s\n {2}\S+:\d+: applied seq 1, now active\n$/);
    // Acknowledged means applied: no need to poll.
    expect(await metricState(d)).toBe('active');

    // Stopped: nothing confirms. The record stays stored and applies at the next start.
    d.signal('SIGTERM');
    expect((await d.exit()).code).toBe(0);
    await sleep(5500); // its last report ages out (a replica is alive while it reported within 5 s)
    const unconfirmed = await runCli(['pause', '--config', config.file, '--wait-seconds', '2'], ENV);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('trading state -> halted stored (seq 2');
    expect(unconfirmed.stderr).toContain('the daemon did not confirm within 2 s: no daemon reported with this config');
    daemon = new DaemonProcess(['run', '--config', config.file], ENV);
    expect(await daemon.waitForLine(msg('trading state at start'), 30_000, 'restart')).toMatchObject({ state: 'halted', stored: 'halted', seq: 2 });
  });

  test('--wait-seconds is checked', async () => {
    const bad = await runCli(['pause', '--config', config.file, '--wait-seconds', 'soon'], ENV);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('--wait-seconds must be a number of seconds from 0 to 3600, got "soon"')]);
  });
});

describe('paper without Redis: the trading state lives in a file in the state directory', () => {
  test('pause and resume through the state file, acknowledged; SIGUSR2 does not resume; a restart keeps the pause', async () => {
    const stateDir = path.join(tmp, 'state');
    const base = paperConfig();
    const config = writeConfig({ ...base, strategies: { ...(base['strategies'] as object), stateDir } });
    const ENV = {};
    try {
      daemon = new DaemonProcess(['run', '--config', config.file], ENV);
      let d = daemon;
      await d.waitForLine(msg('tradebot started'), 30_000, 'start');
      expect(await metricState(d)).toBe('active');

      const paused = await runCli(['pause', '--config', config.file, '--reason', 'no redis'], ENV);
      expect(paused.code).toBe(0);
      expect(paused.stdout).toContain(`trading state -> halted stored (seq 1, file ${path.join(stateDir, 'control')}/trading-state.json): applied by 1 running replica`);
      expect(await metricState(d)).toBe('halted');
      const file = JSON.parse(readFileSync(path.join(stateDir, 'control', 'trading-state.json'), 'utf8')) as Record<string, unknown>;
      expect(file).toMatchObject({ state: 'halted', reason: 'no redis', seq: 1 });

      d.signal('SIGUSR2');
      await d.waitForLine((l) => l.msg.startsWith('SIGUSR2 ignored'), 5000, 'SIGUSR2 ignored');
      await sleep(2500);
      expect(await metricState(d)).toBe('halted');

      // A restart comes back paused (the file is durable); then resume through the file.
      d.signal('SIGTERM');
      expect((await d.exit()).code).toBe(0);
      daemon = new DaemonProcess(['run', '--config', config.file], ENV);
      d = daemon;
      expect(await d.waitForLine(msg('trading state at start'), 30_000, 'restart')).toMatchObject({ state: 'halted', stored: 'halted', seq: 1 });
      await d.waitForLine(msg('tradebot started'), 30_000, 'started again');
      const resumed = await runCli(['resume', '--config', config.file], ENV);
      expect([resumed.code, resumed.stderr]).toEqual([0, '']);
      expect(resumed.stdout).toContain('trading state -> active stored (seq 2');
      expect(await metricState(d)).toBe('active');
    } finally {
      config.cleanup();
    }
  });
});

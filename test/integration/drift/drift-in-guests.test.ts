import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { Decimal } from '../../../src/domain/decimal';
import { runDriftInGuests } from '../../../src/drift/drift-in-guests';
import { driftSpecOf } from '../../../src/drift/drift-spec';
import type { DriftSources } from '../../../src/drift/run-drift';
import type { GuestStrategy } from '../../../src/strategy/guest/guest-host';
import { defaultIsolation } from '../../../src/strategy/guest/sandbox';
import { InMemoryDeploymentLog } from '../../../src/store/memory/in-memory-deployment-log';
import { InMemoryLeaseStore } from '../../../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../../../src/store/memory/in-memory-order-store';

/**
 * The drift check's replays run in guest processes (issue #29, finding 1: at f3f3721 the periodic
 * check ran `tradebot drift` with the daemon's whole environment and loaded the strategy modules in
 * that process). Real guest processes at the strongest level this host gives, over records filled
 * here as the daemon records them: a replay answers its result; a module that throws at load and
 * one that never returns end with clear errors, the hanging one killed at timeoutMs.
 */
jest.setTimeout(30_000);

const ROOT = path.resolve(__dirname, '..', '..', '..');
const CSV = path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv');
const CANDLES = 90;
const FIRST = 1631917380;
const FROM = FIRST + 30 * 60;
const TO = FIRST + 80 * 60;

let dir: string;
let sources: DriftSources;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'drift-in-guests-'));
  copyFileSync(path.join(ROOT, 'test/integration/app/strategies/churn.js'), path.join(dir, 'churn.js'));
  writeFileSync(path.join(dir, 'thrower.js'), "throw new Error('thrower: top-level failure on purpose');\n");
  // What finding 1's module did in the drift child: read the secret, write a file, spawn, read a sibling.
  writeFileSync(path.join(dir, 'spy.js'), [
    "const fs = require('fs');",
    'const tried = (fn) => { try { fn(); return \'done\'; } catch (e) { return e.code || e.message; } };',
    'const report = {',
    '  secret: process.env.TRADEBOT_API_SECRET === undefined ? null : process.env.TRADEBOT_API_SECRET,',
    "  tradebotEnv: Object.keys(process.env).filter((k) => k.startsWith('TRADEBOT')),",
    "  write: tried(() => fs.appendFileSync(__dirname + '/leak.txt', 'x')),",
    "  spawn: tried(() => require('child_process').spawnSync('touch', [__dirname + '/spawned.txt'])),",
    "  worker: tried(() => new (require('worker_threads').Worker)('1', { eval: true })),",
    "  sibling: tried(() => fs.readFileSync(__dirname + '/churn.js')),",
    '};',
    "throw new Error('spy:' + JSON.stringify(report));",
  ].join('\n'));
  writeFileSync(path.join(dir, 'sleeper.js'), [
    "const { z } = require('tradebot/strategy');",
    "module.exports = { name: 'sleeper', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: z.object({}),",
    '  onCandle() { for (;;) { /* never answers */ } } };',
  ].join('\n'));
  const log = new InMemoryDeploymentLog();
  const rows = readFileSync(CSV, 'utf8').trim().split('\n').slice(1, 1 + CANDLES);
  for (const row of rows) {
    const [time, open, high, low, close, volume] = row.split(',') as [string, string, string, string, string, string];
    const t = Number(time);
    const norm = (v: string): string => new Decimal(v).toString();
    await log.recordCandle({
      market: 'BTC_USDT', interval: '1m', time: t, open: norm(open), high: norm(high), low: norm(low), close: norm(close),
      volume: norm(volume), volumeMoney: new Decimal(volume).times(close).toString(), source: 'live', stale: false, receivedMarketMs: (t + 60) * 1000 + 150,
    });
  }
  await log.recordBalances({ marketMs: FIRST * 1000, balances: { USDT: { available: '10000', freeze: '0' }, BTC: { available: '0', freeze: '0' } } });
  await log.markRun({ runId: 'run-1', event: 'start', marketMs: FIRST * 1000, atMs: 1_700_000_000_000 });
  await log.markRun({ runId: 'run-1', event: 'heartbeat', marketMs: (FIRST + CANDLES * 60) * 1000, atMs: 1_700_000_000_000 + CANDLES * 60_000 });
  sources = { log, journal: new InMemoryOrderStore(new InMemoryLeaseStore()) };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function specFor(name: string): ReturnType<typeof driftSpecOf> {
  const config = parseConfig({
    mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: CSV }], balances: { USDT: '10000' } },
    strategies: { dir, enabled: [{ name }] },
  }, {}, 'paper.yaml');
  return driftSpecOf(config, ROOT, FROM, TO);
}
/** What the daemon's describe step reports of a module (the guest loads the file itself). */
const meta = (name: string, warmup: number): GuestStrategy => ({ name, markets: ['BTC_USDT'], interval: '1m', warmup, window: Math.max(warmup, 2), file: path.join(dir, `${name}.js`) });

/** Linux shows every process's command line; elsewhere (macOS) the process checks are left out. */
const HAS_PROC = existsSync('/proc/self/cmdline');
/** Processes whose command line names the test's strategy folder (a guest's allow-list does). */
function guestsAlive(): number[] {
  const pids: number[] = [];
  if (!HAS_PROC) return pids;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) pids.push(Number(pid));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}
async function noGuestLeft(): Promise<number[]> {
  for (let i = 0; i < 40 && guestsAlive().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return guestsAlive();
}

test('a strategy replayed in its guest answers the drift result of that strategy', async () => {
  const started = Date.now();
  const done = await runDriftInGuests(specFor('churn'), sources, { strategies: [meta('churn', 2)], isolation: defaultIsolation(), heapMb: 256, timeoutMs: 15_000 });
  console.log(`churn replayed in a ${defaultIsolation()} guest in ${Date.now() - started} ms`);
  expect(done.result.strategies.map((s) => s.strategy)).toEqual(['churn']);
  expect([done.result.from, done.result.to]).toEqual([FROM, TO]);
  const churn = done.result.strategies[0]!;
  expect(churn.replayOrders).toBeGreaterThan(0); // churn orders on every candle; the journal is empty
  expect(churn.liveOrders).toBe(0);
  expect(Decimal.isDecimal(churn.pnlDifference)).toBe(true);
  expect(done.result.candlesRecorded).toBeGreaterThan(0);
  expect(done.cpuSeconds).toBeGreaterThan(0);
  expect(await noGuestLeft()).toEqual([]);
});

test('a module whose top-level code throws: a clear error naming the failure, nothing left running', async () => {
  const err = await runDriftInGuests(specFor('thrower'), sources, { strategies: [meta('thrower', 0)], isolation: defaultIsolation(), heapMb: 256, timeoutMs: 15_000 }).then(
    () => { throw new Error('the drift check succeeded'); }, (e: unknown) => e as Error,
  );
  expect(err.message).toMatch(/^drift replay of thrower failed: /);
  expect(err.message).toContain('thrower: top-level failure on purpose');
  console.log(`a module throwing at load: ${err.message}`);
  expect(await noGuestLeft()).toEqual([]);
});

test('the replay\'s guest has no secret and cannot write, spawn, start a thread or read a sibling module', async () => {
  process.env['TRADEBOT_API_SECRET'] = 'drift-guest-test-secret-7f3a';
  try {
    const err = await runDriftInGuests(specFor('spy'), sources, { strategies: [meta('spy', 0)], isolation: defaultIsolation(), heapMb: 256, timeoutMs: 15_000 }).then(
      () => { throw new Error('the drift check succeeded'); }, (e: unknown) => e as Error,
    );
    expect(err.message).not.toContain('drift-guest-test-secret-7f3a');
    const report = JSON.parse(/spy:(\{.*\})/.exec(err.message)?.[1] ?? 'null') as Record<string, unknown>;
    expect(report).toEqual({ secret: null, tradebotEnv: [], write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', worker: 'ERR_ACCESS_DENIED', sibling: 'ERR_ACCESS_DENIED' });
    expect(readdirSync(dir).filter((f) => f === 'leak.txt' || f === 'spawned.txt')).toEqual([]);
  } finally {
    delete process.env['TRADEBOT_API_SECRET'];
  }
});

test('a strategy that never returns is killed at timeoutMs with a clear error', async () => {
  const started = Date.now();
  const running = runDriftInGuests(specFor('sleeper'), sources, { strategies: [meta('sleeper', 0)], isolation: defaultIsolation(), heapMb: 256, timeoutMs: 2_000 }).then(
    () => { throw new Error('the drift check succeeded'); }, (e: unknown) => e as Error,
  );
  await new Promise((r) => setTimeout(r, 1_000));
  // While it spins: the guest is there, and its job file is in a private directory (its allow-list names it).
  let jobDir: string | undefined;
  if (HAS_PROC) {
    const pids = guestsAlive();
    expect(pids.length).toBeGreaterThan(0);
    const cmdline = readFileSync(`/proc/${pids[pids.length - 1]!}/cmdline`, 'utf8').split('\0');
    const job = cmdline.find((a) => /^--allow-fs-read=.*\/job-0\.json$/.test(a))?.slice('--allow-fs-read='.length);
    expect(job).toBeDefined();
    jobDir = path.dirname(job!);
    expect(path.basename(jobDir)).toMatch(/^tradebot-drift-/);
    expect(statSync(jobDir).mode & 0o777).toBe(0o700);
    expect(cmdline.filter((a) => a.startsWith('--allow-fs-read=') && a.includes(dir))).toEqual([`--allow-fs-read=${path.join(dir, 'sleeper.js')}`]);
  }
  const err = await running;
  const took = Date.now() - started;
  expect(err.message).toBe('drift replay of sleeper took over 2 s: killed');
  expect(took).toBeGreaterThanOrEqual(2_000);
  expect(took).toBeLessThan(6_000);
  expect(await noGuestLeft()).toEqual([]); // the guest (and, in namespaces, unshare's child) is gone
  if (jobDir !== undefined) expect(existsSync(jobDir)).toBe(false); // the private directory went with it
});

test('a strategy the describe step did not load is refused before any guest starts', async () => {
  await expect(runDriftInGuests(specFor('churn'), sources, { strategies: [], isolation: defaultIsolation() })).rejects.toThrow('churn: not among the loaded strategies');
});

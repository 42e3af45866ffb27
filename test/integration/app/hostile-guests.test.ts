import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DaemonProcess, paperConfig, requireBuild, ROOT, writeConfig, type LogLine } from './daemon-process';

/**
 * Hostile strategy modules dropped into a real paper daemon (child process): a secret reader, an fs
 * reader (its environment, the daemon's, the secret file), a
 * spinner (from its third candle), one calling process.exit, a heap bomb and an importer of daemon
 * internals, beside a well-behaved one. The secret stays invisible, /healthz answers throughout, the
 * steady strategy keeps trading, each hostile guest is counted and paused (metrics), and SIGTERM
 * still stops the daemon cleanly within its grace delay.
 */
jest.setTimeout(90_000);

const SECRET = 'hostile-guest-test-secret-0c9f1e';
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
const HOSTILE = ['spinner', 'exiter', 'heap-bomb'];

let config: ReturnType<typeof writeConfig>;
let daemon: DaemonProcess | undefined;
let secretDir: string;
let secretFile: string;

beforeAll(() => {
  requireBuild();
  // The API secret as a mounted secret file (TRADEBOT_API_SECRET_FILE): fs-reader knows its path.
  secretDir = mkdtempSync(path.join(tmpdir(), 'tradebot-hostile-secret-'));
  secretFile = path.join(secretDir, 'api-secret');
  writeFileSync(secretFile, SECRET, { mode: 0o600 });
  config = writeConfig(paperConfig({
    strategies: {
      dir: path.join(ROOT, 'test/fixtures/guests'), timeBudgetMs: 1000, maxConsecutiveFailures: 3, guestHeapMb: 32,
      enabled: [...['steady', 'secret-reader', ...HOSTILE].map((name) => ({ name })), { name: 'fs-reader', params: { secretFile } }],
    },
  }));
});

afterAll(async () => {
  await daemon?.kill();
  config.cleanup();
  rmSync(secretDir, { recursive: true, force: true });
});

function metricValue(text: string, name: string, strategy: string, extra = ''): number {
  const re = new RegExp(`^${name}\\{strategy="${strategy}"${extra}\\} (\\S+)$`, 'm');
  const m = re.exec(text);
  return m === null ? 0 : Number(m[1]);
}

test('hostile guests affect only themselves', async () => {
  daemon = new DaemonProcess(['run', '--config', config.file], { TRADEBOT_API_SECRET_FILE: secretFile, TRADEBOT_API_KEY: 'hostile-test-key' });
  await daemon.waitForLine(msg('tradebot started'), 30_000, 'start');
  const refused = daemon.lines.find((l) => l.msg.startsWith('strategy not loaded') && String(l['file']).endsWith('importer.ts'));
  expect(refused?.msg).toMatch(/daemon internal/);
  const port = daemon.lines.find(msg('metrics server listening'))!['port'] as number;
  const get = async (p: string) => fetch(`http://127.0.0.1:${port}${p}`);

  // /healthz answers on every probe while the guests spin, exit and blow their heaps; the steady
  // strategy's accepted intents keep growing after every hostile guest has been paused.
  const paused = (text: string) => HOSTILE.every((s) => metricValue(text, 'tradebot_strategy_paused', s) === 1 && metricValue(text, 'tradebot_strategy_errors_total', s) >= 3);
  let text = '';
  let probes = 0;
  for (let i = 0; i < 400 && !paused(text); i++) {
    expect((await get('/healthz')).status).toBe(200);
    probes++;
    text = await (await get('/metrics')).text();
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(paused(text)).toBe(true);
  expect(probes).toBeGreaterThan(3);
  const acceptedThen = metricValue(text, 'tradebot_intents_total', 'steady', ',result="accepted",rule="none"');
  for (let i = 0; i < 400; i++) {
    expect((await get('/healthz')).status).toBe(200);
    text = await (await get('/metrics')).text();
    if (metricValue(text, 'tradebot_intents_total', 'steady', ',result="accepted",rule="none"') > acceptedThen + 3) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const steadyLines = text.split('\n').filter((l) => l.includes('"steady"') && l.startsWith('tradebot_intents_total')).join('\n');
  expect([metricValue(text, 'tradebot_intents_total', 'steady', ',result="accepted",rule="none"') > acceptedThen + 3, steadyLines]).toEqual([true, steadyLines]);
  // (Not "no failure at all": on a loaded machine one steady call may still miss the deadline.)
  expect(metricValue(text, 'tradebot_strategy_paused', 'steady')).toBe(0);
  expect(metricValue(text, 'tradebot_strategy_overruns_total', 'spinner')).toBeGreaterThan(0);
  for (const s of HOSTILE) expect(daemon.lines.some((l) => l.msg.startsWith('strategy thread ended') && l['strategy'] === s)).toBe(true);

  // The secret reader looked and found nothing; the secret is nowhere in the output.
  const hunts = daemon.lines.filter(msg('secret hunt'));
  expect(hunts.length).toBeGreaterThan(0);
  expect(hunts.every((l) => (l['guest'] as { found: string; keys: number }).found === 'nothing' && (l['guest'] as { keys: number }).keys === 0)).toBe(true);

  // fs-reader: its own environment, the daemon's (/proc/<ppid>/environ) and the secret file: all refused.
  const fsHunts = daemon.lines.filter(msg('fs hunt'));
  expect(fsHunts.length).toBeGreaterThan(0);
  for (const l of fsHunts) expect(l['guest']).toEqual({ self: 'refused: ERR_ACCESS_DENIED', parent: 'refused: ERR_ACCESS_DENIED', secretFile: 'refused: ERR_ACCESS_DENIED' });

  // SIGTERM: the daemon stops cleanly within its grace delay (stop() reports "clean" only then).
  daemon.signal('SIGTERM');
  const exit = await daemon.exit();
  expect(exit.code).toBe(0);
  expect(daemon.lines.some(msg('stopped cleanly'))).toBe(true);
  expect(JSON.stringify(daemon.lines) + daemon.stderr).not.toContain(SECRET);
});

/** The daemon's child processes (its guests), from /proc. */
/** Every process below `pid`: a guest in its own namespaces is unshare's child, the daemon's grandchild. */
function childPids(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  const direct = readFileSync(file, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
  return [...direct, ...direct.flatMap((p) => childPids(p))];
}

/** Linux only: /proc/<pid>/stat field 14 (utime), in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[11]);
}

const linuxOnly = process.platform === 'linux' ? test : test.skip;
linuxOnly('a guest spinning when the daemon is SIGKILLed dies with it (parent-death signal)', async () => {
  const spinConfig = writeConfig(paperConfig({
    strategies: { dir: path.join(ROOT, 'test/fixtures/guests'), timeBudgetMs: 60_000, enabled: [{ name: 'spin-forever' }] },
  }));
  try {
    daemon = new DaemonProcess(['run', '--config', spinConfig.file], {});
    // Wait until a guest is burning CPU (inside onCandle's endless loop; warm-up may already call it, so
    // the daemon need not have finished starting).
    let spinning: number | undefined;
    const deadline = Date.now() + 40_000;
    while (spinning === undefined && Date.now() < deadline) {
      spinning = childPids(daemon.pid).find((p) => existsSync(`/proc/${p}`) && cpuTicks(p) > 100);
      if (spinning === undefined) await new Promise((r) => setTimeout(r, 200));
    }
    expect(spinning).toBeDefined();
    const guests = childPids(daemon.pid);
    daemon.signal('SIGKILL');
    await daemon.exit();
    const gone = Date.now() + 10_000;
    while (guests.some((p) => existsSync(`/proc/${p}`)) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    expect(guests.filter((p) => existsSync(`/proc/${p}`))).toEqual([]);
  } finally {
    spinConfig.cleanup();
  }
});

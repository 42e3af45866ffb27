import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { namespacesProblem } from '../../../src/strategy/guest/sandbox';
import { startThrowawayRedis } from '../../helpers/redis-server';
import { DaemonProcess, paperConfig, ROOT, writeConfig, type LogLine } from './daemon-process';

/**
 * The attacker's run against the strategy boundary (docs/security.md): a real paper daemon with the periodic
 * drift check on runs test/fixtures/hostile/hostile.ts, a strategy module that tries to read the API
 * secret (environment, /proc, the secret file), to reach Redis and a listener on loopback (TCP and UDP),
 * to run a command, start a thread, list `..`, read another strategy's source and the transpile cache,
 * to flood the log, and to signal its parent, its group and everyone. Its top-level code runs in the
 * validation guest, the live guest and the drift replay's guest, each trying to write the environment
 * and a marker file to /tmp. Checked from OUTSIDE the guest: files, the listener's and Redis's
 * connection counts, the daemon's log, state and exit. The operator started it halted: it stays halted.
 * Shared by the tests running it under the tests' Node and under the Docker image's Node.
 */

const SECRET = 'hostile-test-api-secret-93c1e';
const OUT_PREFIX = 'tradebot-hostile-out';
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'tradebot', 'strategies');

let daemon: DaemonProcess | undefined;
let tcp: Server | undefined;
let udp: UdpSocket | undefined;
let work: string | undefined;

/** For the test file's afterEach: stops what runHostile started, also when it failed half-way. */
export async function cleanupHostile(): Promise<void> {
  await daemon?.kill();
  tcp?.close();
  udp?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  daemon = undefined;
  tcp = undefined;
  udp = undefined;
  work = undefined;
}

function outFiles(): string[] {
  return readdirSync('/tmp').filter((f) => f.startsWith(OUT_PREFIX));
}

/** The start-up line naming the isolation in force. */
function isolationOf(d: DaemonProcess): string {
  return String(d.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('strategy guests isolated'))?.['isolation']);
}

/**
 * The executable (argv[0]) of each of the daemon's descendants that runs under the permission model (its
 * guests): proof of which Node binary really runs them. Empty where /proc shows no children (not Linux).
 */
function guestExecutables(pid: number): string[] {
  const out: string[] = [];
  const walk = (p: number): void => {
    const file = `/proc/${p}/task/${p}/children`;
    if (!existsSync(file)) return;
    let children: number[] = [];
    try {
      children = readFileSync(file, 'utf8').trim().split(/\s+/).filter((c) => c !== '').map(Number);
    } catch {
      return; // exited meanwhile
    }
    for (const c of children) {
      try {
        const argv = readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0');
        // nohup, setpriv and unshare exec what follows them (unshare in a forked child): the guest itself has Node as argv[0].
        const isGuest = argv.some((a) => a === '--permission' || a === '--experimental-permission');
        if (isGuest && !['nohup', 'setpriv', 'unshare'].includes(path.basename(argv[0] ?? ''))) out.push(argv[0] ?? '');
      } catch {
        // exited meanwhile
      }
      walk(c);
    }
  };
  walk(pid);
  return [...new Set(out)];
}

export interface HostileOptions {
  /** Keys merged into the config's `strategies` section (for example `guestIsolation`). */
  readonly strategies?: Readonly<Record<string, unknown>>;
}

export interface HostileResult {
  /** The level the daemon logged and exported. */
  readonly isolation: string;
  /** What the hostile module reported of its attempts, from inside its guest. */
  readonly probe: Record<string, unknown>;
  /** Whether the module was told to try signals (only where its guests get their own PID namespace). */
  readonly signals: boolean;
  /** The Node binaries the daemon's guests run under, seen from /proc (Linux). */
  readonly guestNodes: readonly string[];
}

/**
 * Runs the hostile strategy in a real daemon under `node` (default: the Node running the tests) and checks
 * from outside that nothing got through; returns what the module saw, for the caller's level-specific checks.
 */
export async function runHostile(node?: string, opts: HostileOptions = {}): Promise<HostileResult> {
  for (const f of outFiles()) rmSync(path.join('/tmp', f), { force: true });
  work = mkdtempSync(path.join(tmpdir(), 'tradebot-hostile-'));
  const secretFile = path.join(work, 'api-secret');
  writeFileSync(secretFile, SECRET, { mode: 0o600 });
  mkdirSync(CACHE_DIR, { recursive: true });
  let tcpConnections = 0;
  let udpMessages = 0;
  tcp = createServer((s) => { tcpConnections++; s.destroy(); });
  await new Promise<void>((r) => tcp!.listen(0, '127.0.0.1', r));
  const listenPort = (tcp.address() as { port: number }).port;
  udp = createSocket('udp4');
  udp.on('message', () => { udpMessages++; });
  await new Promise<void>((r) => udp!.bind(listenPort, '127.0.0.1', r));
  // A Redis of its own: every connection it counts is this test's or the attacker's.
  const server = await startThrowawayRedis();
  const redisPort = server.port;
  const redis = new Redis(server.url);
  const connectionsBefore = Number(/total_connections_received:(\d+)/.exec(await redis.info('stats'))?.[1]);

  // Signals are only tried where the guests have their own PID namespace (elsewhere kill(-1) reaches every
  // process of the user, and the permission model does not stop a signal to the parent).
  const choice = opts.strategies?.['guestIsolation'] ?? 'auto';
  const signals = (choice === 'auto' || choice === 'namespaces') && namespacesProblem() === undefined;
  const cfg = writeConfig(paperConfig({
    strategies: {
      dir: path.join(ROOT, 'test/fixtures/hostile'),
      enabled: [{ name: 'hostile', params: { redisPort, listenPort, secretFile, cacheDir: CACHE_DIR, signals } }, { name: 'bystander' }],
      guestLogLinesPerSecond: 20,
      // The probe's first candle tries every door (spawn, files, sockets): over the default 250 ms on a slow
      // hour, the guest is killed and re-warmed until paused and never reaches its later rounds. Budgets
      // and overruns have their own tests; this one is about what the guest can reach.
      timeBudgetMs: 2000,
      ...opts.strategies,
    },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' }, initialState: 'halted' },
    drift: { intervalMinutes: 10, windowMinutes: 10 },
  }));
  try {
    daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_API_SECRET: SECRET, TRADEBOT_API_KEY: 'hostile-test-key' }, node === undefined ? {} : { node });
    const d = daemon;
    const port = Number((await d.waitForLine((l: LogLine) => l.msg === 'metrics server listening', 30_000))['port']);
    const probe = (await d.waitForLine((l) => l.msg === 'hostile probe', 60_000, 'the hostile probe'))['guest'] as Record<string, unknown>;
    const guestNodes = guestExecutables(d.pid); // the live guest is running now
    const drift = await d.waitForLine((l) => l.msg === 'drift check done' || l.msg === 'drift check failed', 90_000, 'a periodic drift check (the module loaded in the replay guest)');
    // The replay ran the hostile module in its guest: it finished, or the module ended its own guest with its signals.
    if (drift.msg === 'drift check failed') expect(String(drift['error'])).toMatch(/^drift replay of hostile: its guest ended without an answer/);
    if (signals) await d.waitForLine((l) => l.msg === 'hostile signals', 60_000, 'the hostile signals');
    await new Promise((r) => setTimeout(r, 2000)); // anything that got through would show by now
    const isolation = isolationOf(d);
    console.log(`hostile strategy at isolation ${isolation} (daemon under ${node ?? process.execPath}): ${JSON.stringify(probe)}`);

    // Outside the guest: nothing written, nothing run, nobody reached.
    expect(outFiles()).toEqual([]);
    expect(tcpConnections).toBe(0);
    expect(udpMessages).toBe(0);
    const connectionsAfter = Number(/total_connections_received:(\d+)/.exec(await redis.info('stats'))?.[1]);
    expect(connectionsAfter - connectionsBefore).toBe(0); // the test's one connection was counted before: none from the guest
    // The daemon: still running, still halted as the operator set it, no signal seen, the secret nowhere.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^tradebot_trading_state\{state="halted"\} 1$/m);
    expect(metrics).toMatch(new RegExp(`^tradebot_guest_isolation_info\\{level="${isolation}"\\} 1$`, 'm'));
    expect(metrics).toMatch(/^tradebot_strategy_log_capped_total\{strategy="hostile",cap="rate"\} [1-9]/m);
    expect(metrics).toMatch(/^tradebot_strategy_log_capped_total\{strategy="hostile",cap="size"\} [1-9]/m);
    expect(d.count((l) => /SIGUSR2|SIGHUP|SIGTERM/.test(String(l.msg)))).toBe(0);
    // The cap (burst 100, then 20 lines a second) over the stretch the flood's lines crossed the gate.
    const flood = d.lines.filter((l) => l.msg === 'flood').map((l) => Date.parse(String(l['time'])));
    const spanSec = flood.length === 0 ? 0 : (Math.max(...flood) - Math.min(...flood)) / 1000;
    expect(flood.length).toBeLessThanOrEqual(100 + 20 * Math.ceil(spanSec + 1));
    expect(flood.length).toBeLessThan(1000); // of the 5000 sent
    expect(JSON.stringify(d.lines.find((l) => l.msg === 'huge line')).length).toBeLessThan(5000);
    expect(JSON.stringify(d.lines)).not.toContain(SECRET);
    expect(JSON.stringify(d.lines)).not.toContain('bystander-source-7f3a');
    d.signal('SIGTERM');
    expect((await d.exit()).code).toBe(0);
    expect(d.stderr).not.toContain(SECRET);
    return { isolation, probe, signals, guestNodes };
  } finally {
    await redis.quit();
    await server.stop();
    cfg.cleanup();
  }
}

/** What the guest itself saw: every attempt refused (the sockets where the level covers the network). */
export function expectGuestSawRefusals(isolation: string, probe: Record<string, unknown>): void {
  const top = probe['topLevel'] as Record<string, unknown>;
  expect(top['envKeys']).toBe(0);
  expect(top['write']).toMatch(/^refused/);
  expect(top['spawn']).toMatch(/^refused/);
  expect(probe['envSecret']).toBe('ok: absent');
  for (const key of ['procEnviron', 'secretFile', 'parentDir', 'ownDir', 'sibling', 'cache', 'write', 'spawn', 'worker']) {
    expect([key, probe[key]]).toEqual([key, expect.stringMatching(/^refused/)]);
  }
  if (isolation === 'namespaces' || isolation === 'permission-net') {
    for (const key of ['redis', 'listener', 'udp']) expect([key, probe[key]]).toEqual([key, expect.stringMatching(/^refused/)]);
  }
  if (isolation === 'namespaces') {
    expect(probe['pid']).toBe(1); // its own PID namespace: pid 1 is itself, no process outside is visible
    expect(probe['ppid']).toBe(0);
  }
}

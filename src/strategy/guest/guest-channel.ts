import { fork, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromGuest, ToGuest } from './protocol';

/**
 * Where a guest runs:
 * - `process` (default): a child process under Node's permission model, started with an empty
 *   environment, `--max-old-space-size`, and read access to nothing but the daemon's own code, its
 *   node_modules and the strategy directory: no /proc/<pid>/environ, no secret files, no writes, no
 *   child processes, no worker threads, no native addons (`process.binding` is refused too).
 * - `thread`: a worker thread of the daemon (empty `process.env`, heap limit): cheaper to wake, but it
 *   shares the daemon's process, so `fs` reaches whatever the daemon can read (secret files,
 *   /proc/self/environ).
 */
export type GuestIsolation = 'process' | 'thread';
export const GUEST_ISOLATIONS: readonly GuestIsolation[] = ['process', 'thread'];

export interface GuestChannel {
  post(message: ToGuest): void;
  /**
   * Keeps the event loop alive while an answer is awaited (true) or not (false). A guest never keeps
   * the daemon from exiting once nothing waits on it; while something does, its answer must arrive.
   */
  hold(waiting: boolean): void;
  /** Ends the guest (SIGKILL / terminate) without waiting on its code. */
  kill(): Promise<void>;
}

export interface ChannelOptions {
  readonly isolation: GuestIsolation;
  readonly heapMb: number;
  /** Folders (and files) the guest may read besides the daemon's code: the strategy directory. */
  readonly readable: readonly string[];
  readonly onMessage: (message: FromGuest) => void;
  /** The guest ended by itself or failed (exit, crash, heap): called at most once. */
  readonly onEnd: (reason: string) => void;
}

/** The running project: `<repo>/src` under ts-jest, `<repo>/dist/src` after the build. */
const RUNNING_SRC = path.resolve(__dirname, '..', '..');
const FROM_TS = path.extname(__filename) === '.ts';
const REPO_ROOT = FROM_TS ? path.resolve(RUNNING_SRC, '..') : path.resolve(RUNNING_SRC, '..', '..');
const ENTRY = path.join(__dirname, `guest-worker${path.extname(__filename)}`);

export function openChannel(o: ChannelOptions): GuestChannel {
  return o.isolation === 'thread' ? threadChannel(o) : processChannel(o);
}

function once(o: ChannelOptions): (reason: string) => void {
  let ended = false;
  return (reason) => {
    if (ended) return;
    ended = true;
    o.onEnd(reason);
  };
}

function threadChannel(o: ChannelOptions): GuestChannel {
  const end = once(o);
  // Under ts-jest the TypeScript entry goes through sucrase; the daemon runs the compiled one.
  const worker = FROM_TS
    ? new Worker(`require('sucrase/register/ts'); require(${JSON.stringify(ENTRY)});`, { eval: true, env: {}, resourceLimits: limits(o.heapMb), stdout: true, stderr: true })
    : new Worker(ENTRY, { env: {}, resourceLimits: limits(o.heapMb), stdout: true, stderr: true });
  worker.stdout.resume(); // the guest's console goes nowhere near the daemon's JSON log stream
  worker.stderr.resume();
  worker.unref();
  worker.on('message', o.onMessage);
  worker.on('error', (err) => end(`thread error: ${err.message}`));
  worker.on('exit', (code) => end(`thread exited (code ${code})`));
  return {
    post: (m) => worker.postMessage(m),
    hold: (waiting) => { if (waiting) worker.ref(); else worker.unref(); },
    kill: async () => { await worker.terminate().catch(() => undefined); },
  };
}

function limits(heapMb: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 16 };
}

/** What a process guest may read: the daemon's code and packages, and the strategy directory. */
export function readablePaths(extra: readonly string[]): string[] {
  const code = FROM_TS ? path.join(REPO_ROOT, 'src') : path.join(REPO_ROOT, 'dist');
  return [
    `${code}/*`, `${path.join(REPO_ROOT, 'node_modules')}/*`, path.join(REPO_ROOT, 'package.json'),
    ...extra.map((p) => `${path.resolve(p)}/*`),
  ];
}

function processChannel(o: ChannelOptions): GuestChannel {
  const end = once(o);
  const nodeArgs = [
    ...(FROM_TS ? ['--require', 'sucrase/register/ts'] : []),
    // One flag per path: Node 20 does not split a comma list.
    '--experimental-permission', ...readablePaths(o.readable).map((p) => `--allow-fs-read=${p}`),
    `--max-old-space-size=${o.heapMb}`, '--max-semi-space-size=16', '--no-warnings',
  ];
  const setpriv = setprivPath();
  const child: ChildProcess = fork(ENTRY, [], {
    env: {}, // no daemon environment variables (secrets, Redis URL)
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'], // its console goes nowhere near the daemon's log stream
    // A guest spinning when the daemon is SIGKILLed (OOM, kill -9) would outlive it and eat a core until
    // its cgroup ends: the kernel's parent-death signal kills it with the daemon. setpriv sets it and
    // execs node in place, so the guest keeps the daemon as its parent.
    ...(setpriv === undefined ? { execArgv: nodeArgs } : { execPath: setpriv, execArgv: ['--pdeathsig', 'KILL', process.execPath, ...nodeArgs] }),
  });
  const ipc = child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
  child.unref();
  ipc?.unref?.(); // the daemon's shutdown never waits on a guest
  child.on('message', (m) => o.onMessage(m as FromGuest));
  child.on('error', (err) => end(`process error: ${err.message}`));
  child.on('exit', (code, signal) => end(`process exited (${signal === null ? `code ${code}` : signal})`));
  return {
    post: (m) => {
      if (child.connected) child.send(m);
    },
    hold: (waiting) => { if (waiting) ipc?.ref?.(); else ipc?.unref?.(); },
    kill: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.ref(); // SIGKILL ends it at once: waiting for that is never waiting on the guest's code
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    }),
  };
}

let setprivLookup: string | null | undefined;
/**
 * util-linux's setpriv (Linux; in every Debian image) if present: `--pdeathsig KILL` ends a guest when the
 * daemon dies. Elsewhere guests start without it (macOS development) and a guest spinning when the daemon is
 * killed outlives it until its process group ends (docs/strategies.md).
 */
function setprivPath(): string | undefined {
  if (setprivLookup === undefined) {
    setprivLookup = null;
    if (process.platform === 'linux') {
      for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
        try {
          accessSync(candidate, fsConstants.X_OK);
          setprivLookup = candidate;
          break;
        } catch {
          // not here
        }
      }
    }
  }
  return setprivLookup ?? undefined;
}

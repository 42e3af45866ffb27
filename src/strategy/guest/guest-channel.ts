import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromGuest, ToGuest } from './protocol';
import type { GuestIsolationLevel } from '../../domain/guest-isolation';
import { guestLaunch } from './sandbox';

/**
 * Where a guest runs, by its isolation level (sandbox.ts): `thread` in a worker thread of the daemon
 * (empty `process.env`, heap limit; it shares the daemon's process), every other level in a child
 * process started with an empty environment, `--max-old-space-size`, the permission model and read
 * access to its allow-list only, in its own session (a signal to its process group reaches no one
 * but itself), and at `namespaces` in its own user, PID, network and IPC namespaces.
 */
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
  readonly isolation: GuestIsolationLevel;
  readonly heapMb: number;
  /** Files (and folders) the guest may read besides the daemon's code: its strategy's (sandbox.strategyReadable). */
  readonly readable: readonly string[];
  readonly onMessage: (message: FromGuest) => void;
  /** The guest ended by itself or failed (exit, crash, heap): called at most once. */
  readonly onEnd: (reason: string) => void;
}

const FROM_TS = path.extname(__filename) === '.ts';
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

function processChannel(o: ChannelOptions): GuestChannel {
  const end = once(o);
  if (o.isolation === 'thread') throw new RangeError('a thread guest has no process');
  const child = forkGuest(ENTRY, o.isolation, o.readable, o.heapMb);
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
      killGuest(child);
    }),
  };
}

/**
 * A guest process running `entry` (a file of the daemon's code) at `level`, reading `readable` alone,
 * with an IPC channel (advanced serialization) and nothing else: no environment, no stdio, its own
 * session and process group, so kill(0, ...) from the guest reaches its own group only, never the
 * daemon's (pm2, systemd and a terminal signal the daemon, which stops its guests).
 */
export function forkGuest(entry: string, level: Exclude<GuestIsolationLevel, 'thread'>, readable: readonly string[], heapMb: number): ChildProcess {
  const launch = guestLaunch(level, readable, heapMb);
  return fork(entry, [], {
    env: {}, // no daemon environment variables (secrets, Redis URL)
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'], // its console goes nowhere near the daemon's log stream
    detached: true,
    execPath: launch.execPath, execArgv: [...launch.execArgv],
  });
}

/**
 * SIGKILL for a guest process. At `namespaces` the child is unshare and the guest its own child: the
 * guest is killed first, so unshare reaps it and exits. Killing unshare first would orphan the guest to
 * PID 1, which in a container is the daemon, and node never reaps a process it did not start.
 */
export function killGuest(child: ChildProcess): void {
  const pid = child.pid;
  if (pid !== undefined) {
    try {
      const inner = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((x) => x !== '').map(Number);
      for (const p of inner) process.kill(p, 'SIGKILL');
      if (inner.length > 0) return;
    } catch {
      // No /proc (macOS) or it is gone already: kill what we started.
    }
  }
  child.kill('SIGKILL');
}

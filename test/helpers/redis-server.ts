import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { missingLine, REDIS_SERVER, toolWorks } from './system-tools';

/** A throwaway redis-server on a random loopback port with persistence off. Never a user's Redis. */
export interface ThrowawayRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited early with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not listen on port ${port} within ${timeoutMs} ms`);
}

/** Starts redis-server on `port` (a fresh random one when omitted). Reusing a port restarts "the same" server. */
export async function startThrowawayRedis(port?: number): Promise<ThrowawayRedis> {
  if (!toolWorks(REDIS_SERVER)) throw new Error(missingLine(REDIS_SERVER));
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'],
    { stdio: 'ignore', detached: false },
  );
  await waitForPort(chosen, child, 10_000);
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

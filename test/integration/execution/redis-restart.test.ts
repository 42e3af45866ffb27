import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import type { SubmitResult } from '../../../src/execution/orders/executor';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { connectRedis, createRedis } from '../../../src/store/redis';
import { freePort } from '../../helpers/redis-server';
import { API_KEY, httpClient, MARKET, replica, sleep, startSim, stopLimit, T0, until, type Replica } from './harness';
import { compareJournalWithSim } from './invariants';

jest.setTimeout(30_000);

/**
 * A private redis-server WITH persistence (AOF, fsync always), as a journal needs in production:
 * restarting it on the same port and directory brings the journal back. (The shared test helper
 * runs Redis without persistence, where a restart empties the journal.)
 */
class PersistentRedis {
  private proc: ChildProcess | undefined;
  constructor(readonly port: number, readonly dir: string) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes',
      '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
    const probe = createRedis(this.url, { lazyConnect: true, maxReconnectDelayMs: 50 });
    await until(async () => {
      try {
        await connectRedis(probe, 500);
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      }
    }, 100, 50);
    probe.disconnect();
  }
  async stop(): Promise<void> {
    const proc = this.proc;
    if (proc === undefined || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  }
}

let sim: SimulatedExchange;
let server: PersistentRedis;
let r: Replica | undefined;
let dir: string;

afterEach(async () => {
  r?.execution.reconciler.stop();
  await sim?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('Redis restarted mid-run: nothing is sent that was not journaled, work resumes by itself', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-exec-redis-'));
  server = new PersistentRedis(await freePort(), dir);
  await server.start();
  sim = await startSim();
  const redis = createRedis(server.url, { lazyConnect: true, maxReconnectDelayMs: 100, commandTimeoutMs: 500 });
  await connectRedis(redis);
  r = await replica({ redis, prefix: 'tbrestart', client: httpClient(sim.url), owner: 'restart-a', scopes: [['alpha', MARKET]], leaseTtlMs: 10_000 });
  const renew = setInterval(() => void r!.keeper.tick(), 200); // the daemon's scheduler does this
  try {
    await r.execution.reconciler.runOnce();
    const intent = (i: number) => stopLimit('alpha', T0 + i * 60, { activationPrice: new Decimal(105 + i), price: new Decimal(106 + i) });
    const results: SubmitResult[] = [];
    for (let i = 0; i < 5; i++) results.push(await r.execution.executor.submit(intent(i)));
    expect(results.every((x) => x.outcome === 'accepted')).toBe(true);

    await server.stop();
    // While Redis is down nothing can be journaled, so nothing may be sent.
    const during: string[] = [];
    for (let i = 5; i < 10; i++) {
      during.push(await r.execution.executor.submit(intent(i)).then((x) => x.outcome, (err: Error) => err.name));
    }
    expect(during.every((x) => x === 'StoreUnavailableError' || x === 'denied')).toBe(true);
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(5);

    await sleep(300);
    await server.start(); // same port, same data directory
    // The strategy host re-emits the intents it could not place; they go through once Redis is back.
    await until(async () => {
      const again = await Promise.all(Array.from({ length: 10 }, (_, i) => r!.execution.executor.submit(intent(i)).catch(() => undefined)));
      return again.every((x) => x !== undefined && (x.outcome === 'accepted' || x.outcome === 'existing'));
    }, 100, 100);
    await r.execution.reconciler.runOnce();

    const records = await r.store.listAll(100);
    expect(records).toHaveLength(10);
    const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
    expect([cmp.duplicates, cmp.unknownToJournal, cmp.mismatches, cmp.unsettled]).toEqual([[], [], [], []]);
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(10);
  } finally {
    clearInterval(renew);
    redis.disconnect();
  }
});

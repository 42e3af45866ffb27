import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { FlowProducer, Worker } from 'bullmq';
import { startThrowawayRedis } from '../test/helpers/redis-server';
import { connectRedis, createRedis } from '../src/store/redis';
import type { BenchRow } from './bench-types';

/**
 * Distributed sweeps (issue #23): the same sweep (sma-cross, 5m, a 32-point grid over the real 1m
 * BTC/USDT month) run
 *   1. in-process on all cores (`backtest --sweep --workers <cores>`),
 *   2. on the queue with 1 `tradebot worker --concurrency <cores>`,
 *   3. on the queue with 2 workers of `--concurrency <cores/2>` each (the same threads in all),
 * each a fresh child-process CLI on a throwaway redis-server, median wall time of RUNS runs (each
 * queue run under a fresh key prefix, so nothing is reused). Then the queue's own cost per chunk:
 * BullMQ flows of CHUNKS no-op chunks with the options submitBatch uses, timed end to end (add,
 * process, complete, parent collect), counted in Redis commands (INFO stats) and in Redis CPU time
 * (INFO cpu), which is what the worked estimate in docs/distributed-sweeps.md "Sizing" scales to 10
 * and 100 workers.
 *
 * Run on a quiet machine (load < 1): `npm run build && node dist/bench/run.js queue-sweep`.
 */
const RUNS = 3;
const CHUNKS = 500;
const ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const MONTH = ['/work/shared/data/btc_usdt-1m-binance-2021-09.csv', path.join(ROOT, 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv')].find((f) => existsSync(f)) as string;
const GRID = '{"fast":[5,8,10,12,15,18,20,25],"slow":[30,40,50,60]}';
const GRID_RUNS = 32;
const CHUNK_SIZE = 4;

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(MAIN)) throw new Error('run "npm run build" first');
  const cores = availableParallelism();
  const redis = await startThrowawayRedis();
  const load = `load ${loadavg()[0]!.toFixed(1)} at start, ${cores} cores`;
  try {
    const local = await median(() => timed(() => cli(['--workers', String(cores)], {})));
    const one = await median(() => queued(redis.url, [cores]));
    const two = await median(() => queued(redis.url, [Math.max(1, Math.floor(cores / 2)), Math.max(1, Math.ceil(cores / 2))]));
    const chunks = Math.ceil(GRID_RUNS / CHUNK_SIZE);
    const overhead = await perChunkOverhead(redis.url);
    return [
      { name: `sweep ${GRID_RUNS} runs, in-process, ${cores} threads`, value: round(local), unit: 's wall', note: `${path.basename(MONTH)}; ${load}` },
      { name: `sweep on the queue, 1 worker x ${cores} threads`, value: round(one), unit: 's wall', note: `${chunks} chunks of ${CHUNK_SIZE}; client start to files written` },
      { name: 'sweep on the queue, 2 workers (same threads in all)', value: round(two), unit: 's wall', note: `${chunks} chunks of ${CHUNK_SIZE}` },
      { name: 'queue cost per chunk, end to end (from the sweeps above)', value: round(((one - local) / chunks) * 1000), unit: 'ms', note: '(1-worker queue wall - in-process wall) / chunks; includes worker start-up' },
      { name: 'queue cost per no-op chunk (BullMQ flow, same options)', value: round(overhead.msPerChunk), unit: 'ms', note: `${CHUNKS} chunks, 1 worker, concurrency ${cores}` },
      { name: 'no-op chunks per second, one worker', value: Math.round(1000 / overhead.msPerChunk), unit: 'chunks/s' },
      { name: 'Redis commands per chunk (add + run + finish + collect)', value: round(overhead.commandsPerChunk), unit: 'commands', note: 'INFO stats total_commands_processed delta / chunks' },
      { name: 'Redis commands per second at that rate', value: Math.round(overhead.commandsPerSecond), unit: 'commands/s' },
      { name: 'Redis CPU per chunk', value: round(overhead.redisCpuUsPerChunk), unit: 'us', note: 'INFO cpu used_cpu_user + used_cpu_sys delta / chunks' },
      { name: 'chunks/s one Redis core could serve', value: Math.round(1e6 / overhead.redisCpuUsPerChunk), unit: 'chunks/s', note: `1 s / Redis CPU per chunk; load ${loadavg()[0]!.toFixed(1)} at end` },
    ];
  } finally {
    await redis.stop();
  }
}

/** One queued sweep: workers started (and ready) first, then the client's wall time; workers stopped after. */
async function queued(url: string, threads: readonly number[]): Promise<number> {
  const env = { TRADEBOT_QUEUE_REDIS_URL: url, TRADEBOT_QUEUE_PREFIX: `bench-${randomBytes(4).toString('hex')}` };
  const workers = threads.map((n) => startWorker(n, env));
  try {
    await Promise.all(workers.map((w) => w.ready));
    return await timed(() => cli(['--queue', '--chunk-size', String(CHUNK_SIZE)], env));
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }
}

function startWorker(threads: number, env: Record<string, string>): { child: ChildProcess; ready: Promise<void>; exited: Promise<void> } {
  const child = spawn(process.execPath, [MAIN, 'worker', '--concurrency', String(threads), '--cache-dir', mkdtempSync(path.join(tmpdir(), 'tb-bench-cache-'))], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('sweep worker ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready: ${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, ready, exited };
}

function cli(extra: readonly string[], env: Record<string, string>): Promise<void> {
  const out = mkdtempSync(path.join(tmpdir(), 'tb-bench-sweep-'));
  const args = [MAIN, 'backtest', '--strategy', 'sma-cross', '--data', `BTC_USDT=${MONTH}`, '--interval', '5m', '--sweep', GRID, '--out', out, ...extra];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sweep exited ${code}: ${err}`))));
  });
}

/** CHUNKS no-op chunks as one flow, with submitBatch's job options; a worker that returns at once. */
async function perChunkOverhead(url: string): Promise<{ msPerChunk: number; commandsPerChunk: number; commandsPerSecond: number; redisCpuUsPerChunk: number }> {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const connection = { url, maxRetriesPerRequest: null };
  const stats = createRedis(url, { lazyConnect: true });
  await connectRedis(stats);
  const commands = async (): Promise<number> => Number(/total_commands_processed:(\d+)/.exec(await stats.info('stats'))?.[1]);
  // Redis's own CPU time (user + system, main thread and all): what bounds one Redis, whatever the workers do.
  const redisCpu = async (): Promise<number> => {
    const info = await stats.info('cpu');
    return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
  };
  const flows = new FlowProducer({ connection, prefix });
  let parentDone!: () => void;
  const finished = new Promise<void>((resolve) => (parentDone = resolve));
  const worker = new Worker('sweeps', async (job) => {
    if (job.name === 'collect') {
      const values = await job.getChildrenValues();
      await job.getIgnoredChildrenFailures();
      setImmediate(parentDone);
      return Object.keys(values).length;
    }
    return [{ index: 0 }];
  }, { connection, prefix, concurrency: availableParallelism() });
  await worker.waitUntilReady();
  const keep = { age: 3600 };
  const backoff = { type: 'exponential', delay: 2000 };
  const before = await commands();
  const cpuBefore = await redisCpu();
  const started = performance.now();
  await flows.add({
    name: 'collect', queueName: 'sweeps', data: {}, opts: { jobId: 'sweep-bench', attempts: 3, backoff, removeOnComplete: keep, removeOnFail: keep },
    children: Array.from({ length: CHUNKS }, (_, i) => ({ name: 'chunk', queueName: 'sweeps', data: { i }, opts: { jobId: `sweep-bench-c${i}`, attempts: 3, backoff, ignoreDependencyOnFailure: true, removeOnComplete: keep, removeOnFail: keep } })),
  });
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const used = (await commands()) - before;
  const cpu = (await redisCpu()) - cpuBefore;
  await Promise.allSettled([worker.close(), flows.close()]);
  stats.disconnect();
  return { msPerChunk: (seconds * 1000) / CHUNKS, commandsPerChunk: used / CHUNKS, commandsPerSecond: used / seconds, redisCpuUsPerChunk: (cpu * 1e6) / CHUNKS };
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return (performance.now() - started) / 1000;
}

async function median(sample: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < RUNS; i++) values.push(await sample());
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] as number;
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

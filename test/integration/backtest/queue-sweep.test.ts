import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Redis from 'ioredis';
import { CLI_MAIN } from '../../helpers/run-cli';

// Distributed sweeps over real parts: the built CLI as submitting client and as `tradebot worker`
// child processes, BullMQ on the run's throwaway redis-server under a key prefix of each test's own.
const ROOT = join(__dirname, '../../..');
const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const DATA = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';
const base = (grid: string, out: string): string[] => [
  'backtest', '--strategy', 'sma-cross', '--data', `BTC_USDT=${DATA}`, '--interval', '5m', '--sweep', grid, '--out', out,
];

let prefix: string;
let children: ChildProcess[] = [];
const redis = new Redis(REDIS_URL, { lazyConnect: true });

beforeAll(async () => {
  if (!existsSync(CLI_MAIN)) throw new Error('run "npm run build" first: this test runs dist/src/main.js');
  await redis.connect();
});
beforeEach(() => {
  prefix = `tbq-test-${randomBytes(4).toString('hex')}`;
});
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children = [];
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
});
afterAll(async () => {
  redis.disconnect();
});

interface Proc {
  readonly child: ChildProcess;
  out(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited(): Promise<number | null>;
}

function start(args: readonly string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: ROOT, env: { ...process.env, TRADEBOT_QUEUE_REDIS_URL: REDIS_URL, TRADEBOT_QUEUE_PREFIX: prefix, ...env },
  });
  children.push(child);
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (c: Buffer): void => {
    text += c.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    out: () => text,
    exited: () => exit,
    waitFor: (pattern, timeoutMs = 30_000) => new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pattern.test(text)) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${pattern} within ${timeoutMs} ms; output so far:\n${text}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    }),
  };
}

async function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const p = start(args, env);
  const code = await p.exited();
  return { code, out: p.out() };
}

/** A worker process of one thread. `lockMs` short only where a death must be noticed quickly (a busy test machine could otherwise miss a lock renewal and run a chunk twice). */
function worker(lockMs = 30_000, threads = 1): Proc {
  return start(['worker', '--concurrency', String(threads), '--lock-duration', String(lockMs), '--cache-dir', mkdtempSync(join(tmpdir(), 'tb-qcache-'))]);
}

const chunksDone = (...workers: Proc[]): number => workers.reduce((n, w) => n + (w.out().match(/"msg":"chunk done"/g) ?? []).length, 0);

test('two worker processes give the local sweep\'s sweep.csv and sweep.json byte for byte; the same sweep again runs nothing twice', async () => {
  const grid = '{"fast":[5,10,20],"slow":[30,50]}';
  const local = mkdtempSync(join(tmpdir(), 'tb-qlocal-'));
  expect((await run([...base(grid, local), '--workers', '1'])).code).toBe(0);
  // One worker holds two chunks at once on its two threads (runs of both share its thread pool).
  const workers = [worker(30_000, 2), worker()];
  await Promise.all(workers.map((w) => w.waitFor(/sweep worker ready/)));
  const out1 = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const first = await run([...base(grid, out1), '--queue', '--chunk-size', '2']);
  expect(first.code).toBe(0);
  expect(readFileSync(join(out1, 'sweep.csv'))).toEqual(readFileSync(join(local, 'sweep.csv')));
  expect(readFileSync(join(out1, 'sweep.json'))).toEqual(readFileSync(join(local, 'sweep.json')));
  expect(chunksDone(...workers)).toBe(3);
  for (const w of workers) expect(w.out()).not.toMatch(/chunk attempt failed|chunk stalled/);
  // Again: the same batch ID, found finished; no chunk is processed again, the files are the same.
  const out2 = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const again = await run([...base(grid, out2), '--queue', '--chunk-size', '2']);
  expect(again.code).toBe(0);
  expect(again.out).toMatch(/already on/);
  expect(readFileSync(join(out2, 'sweep.csv'))).toEqual(readFileSync(join(local, 'sweep.csv')));
  expect(chunksDone(...workers)).toBe(3);
  // A client that went away reattaches by ID from anywhere.
  const id = /sweep ([0-9a-f]{24}):/.exec(first.out)?.[1] as string;
  const status = await run(['sweep', 'status', id]);
  expect(status.out).toMatch(/state\s+completed/);
  expect(status.out).toMatch(/chunks\s+3\/3 done, 0 failed/);
  const out3 = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  expect((await run(['sweep', 'results', id, '--out', out3])).code).toBe(0);
  expect(readFileSync(join(out3, 'sweep.csv'))).toEqual(readFileSync(join(local, 'sweep.csv')));
}, 90_000);

test('a worker SIGKILLed mid-chunk: the chunk is retried on another worker and the result is still the local one', async () => {
  const grid = '{"fast":[5,8,10,15,20],"slow":[30,40,50]}';
  const local = mkdtempSync(join(tmpdir(), 'tb-qlocal-'));
  expect((await run([...base(grid, local), '--workers', '1'])).code).toBe(0);
  const doomed = worker(1500);
  await doomed.waitFor(/sweep worker ready/);
  const out = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const client = start([...base(grid, out), '--queue', '--chunk-size', '8']);
  await doomed.waitFor(/"chunk":(\d+),"runs":\d+,"attempt":1,"msg":"chunk started"/);
  const chunk = Number(/"chunk":(\d+),"runs":\d+,"attempt":1,"msg":"chunk started"/.exec(doomed.out())?.[1]);
  doomed.child.kill('SIGKILL');
  await doomed.exited();
  expect(doomed.out()).not.toMatch(new RegExp(`"chunk":${chunk},[^\\n]*"chunk done"`));
  const rescuer = worker(1500);
  expect(await client.exited()).toBe(0);
  expect(readFileSync(join(out, 'sweep.csv'))).toEqual(readFileSync(join(local, 'sweep.csv')));
  // The killed chunk ran again on the other worker (its lock lapsed; BullMQ moved it back to wait).
  expect(rescuer.out()).toMatch(new RegExp(`"chunk":${chunk},"runs":8,"attempt":\\d+,"msg":"chunk done"`));
}, 90_000);

test('a client killed after submitting leaves the sweep running; `tradebot sweep results ID` reattaches from another process', async () => {
  const grid = '{"fast":[5,10],"slow":[30,50]}';
  const local = mkdtempSync(join(tmpdir(), 'tb-qlocal-'));
  expect((await run([...base(grid, local), '--workers', '1'])).code).toBe(0);
  const client = start([...base(grid, mkdtempSync(join(tmpdir(), 'tb-qsweep-'))), '--queue', '--chunk-size', '2']);
  await client.waitFor(/queued on/);
  const id = /sweep ([0-9a-f]{24}):/.exec(client.out())?.[1] as string;
  client.child.kill('SIGKILL');
  await client.exited();
  const w = worker();
  const out = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const results = await run(['sweep', 'results', id, '--out', out]);
  expect(results.code).toBe(0);
  expect(readFileSync(join(out, 'sweep.csv'))).toEqual(readFileSync(join(local, 'sweep.csv')));
  expect(readFileSync(join(out, 'sweep.json'))).toEqual(readFileSync(join(local, 'sweep.json')));
  expect(chunksDone(w)).toBe(2);
}, 60_000);

test('a worker refuses data whose content hash differs; the failed chunk is reported as error rows, not dropped', async () => {
  const grid = '{"fast":[5,10],"slow":[30,50]}';
  const out = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const client = start([...base(grid, out), '--queue', '--chunk-size', '4']);
  await client.waitFor(/queued on/);
  // Someone rewrote the queue's copy of the candles: same key, other bytes.
  const keys = await redis.keys(`${prefix}:data:*`);
  expect(keys).toHaveLength(1);
  await redis.set(keys[0] as string, gzipSync(Buffer.from('time,open,high,low,close,volume\n1632808740,1,1,1,1,1\n')));
  const w = worker();
  expect(await client.exited()).toBe(1);
  expect(w.out()).toMatch(/chunk refused/);
  expect(client.out()).toMatch(/chunk 0 \(4 runs\) failed: data for BTC_USDT: content hash [0-9a-f]{12}… differs from the sweep's [0-9a-f]{12}…; refusing it/);
  const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
  expect(csv).toHaveLength(1 + 4);
  for (const row of csv.slice(1)) expect(row).toMatch(/error: chunk 0 failed \(tried up to 3 times\): data for BTC_USDT: content hash/);
  expect(chunksDone(w)).toBe(0);
}, 60_000);

test('walk-forward on the queue: two batches (train, test), the local walk-forward\'s report', async () => {
  const grid = '{"fast":[5,10],"slow":[30,50]}';
  const windows = ['--walk-forward', '{"train":"12h","test":"6h"}'];
  const local = mkdtempSync(join(tmpdir(), 'tb-qlocal-'));
  expect((await run([...base(grid, local), ...windows, '--workers', '1'])).code).toBe(0);
  const w = worker();
  await w.waitFor(/sweep worker ready/);
  const out = mkdtempSync(join(tmpdir(), 'tb-qwf-'));
  const queued = await run([...base(grid, out), ...windows, '--queue']);
  expect(queued.code).toBe(0);
  expect(queued.out.match(/queued on/g)).toHaveLength(2);
  expect(readFileSync(join(out, 'walk-forward.html'))).toEqual(readFileSync(join(local, 'walk-forward.html')));
  const json = (dir: string): unknown => ({ ...(JSON.parse(readFileSync(join(dir, 'walk-forward.json'), 'utf8')) as object), workers: 'n/a' });
  expect(json(out)).toEqual(json(local));
}, 90_000);

test('strict input: --queue needs TRADEBOT_QUEUE_REDIS_URL, a sweep, and never prints the URL\'s password', async () => {
  const out = mkdtempSync(join(tmpdir(), 'tb-qsweep-'));
  const grid = '{"fast":[5],"slow":[30]}';
  const secret = 'queue-pw-7c1f0e9a-never-print';
  const secretUrl = { TRADEBOT_QUEUE_REDIS_URL: `redis://tb:${secret}@127.0.0.1:1/0` };
  // Independent commands: run side by side (two of them wait out the 5 s connect bound).
  const [noUrl, single, withThreads, chunkAlone, unreachable, statusUnreachable, badWorker] = await Promise.all([
    run([...base(grid, out), '--queue'], { TRADEBOT_QUEUE_REDIS_URL: '' }),
    run(['backtest', '--strategy', 'sma-cross', '--data', `BTC_USDT=${DATA}`, '--queue', '--out', out]),
    run([...base(grid, out), '--queue', '--workers', '2']),
    run([...base(grid, out), '--chunk-size', '2', '--workers', '1']),
    run([...base(grid, out), '--queue'], secretUrl),
    run(['sweep', 'status', 'abc'], secretUrl),
    run(['worker', '--concurrency', 'many']),
  ]);
  expect(noUrl.code).toBe(1);
  expect(noUrl.out).toMatch(/TB_ERR_SWEEP_QUEUE: distributed sweeps need the queue Redis: set TRADEBOT_QUEUE_REDIS_URL/);
  expect(single.out).toMatch(/--queue and --chunk-size only apply to --sweep/);
  expect(withThreads.out).toMatch(/--workers sets this machine's threads/);
  expect(chunkAlone.out).toMatch(/--chunk-size only applies with --queue/);
  expect(unreachable.code).toBe(1);
  expect(unreachable.out).toMatch(/queue Redis at redis:\/\/127\.0\.0\.1:1\/0 not reachable/);
  expect(unreachable.out).not.toContain(secret);
  expect(statusUnreachable.code).toBe(1);
  expect(statusUnreachable.out).not.toContain(secret);
  expect(badWorker.out).toMatch(/--concurrency: expected a whole number/);
}, 60_000);

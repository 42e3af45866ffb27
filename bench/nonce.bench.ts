import { fork } from 'node:child_process';
import { startThrowawayRedis } from '../test/helpers/redis-server';
import { connectRedis, createRedis } from '../src/store/redis';
import { RedisNonceSource } from '../src/exchange/nonce/redis-nonce-source';
import { StoreKeys } from '../src/store/keys';
import { storeScripts } from '../src/store/scripts';
import type { BenchRow } from './bench-types';

const PROCESSES = 4;
const DURATION_MS = 4000;
const CHILD_FLAG = '--nonce-bench-child';

interface ChildReport {
  count: number;
  throttled: number;
  latenciesUs: number[];
}

/**
 * Child: allocate nonces for DURATION_MS. Mode `shared`: RedisNonceSource on one API key shared by
 * all children (the real use; capped by the one-nonce-per-ms rule plus the 4 s lead). Mode `raw`:
 * the reserve-nonce script alone, with a `now` that advances on every call so it never throttles
 * (what Redis + Lua can do).
 */
async function child(url: string, mode: string, id: string): Promise<void> {
  const redis = createRedis(url, { lazyConnect: true });
  await connectRedis(redis);
  const report: ChildReport = { count: 0, throttled: 0, latenciesUs: [] };
  const end = Date.now() + DURATION_MS;
  if (mode === 'shared') {
    const source = new RedisNonceSource({ redis, prefix: 'bench' });
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      await source.nextNonce('bench-api-key');
      report.latenciesUs.push(Number(process.hrtime.bigint() - t0) / 1000);
      report.count++;
    }
    report.throttled = source.throttled;
  } else {
    const scripts = storeScripts(redis);
    const key = new StoreKeys(`raw${id}`, 'bench').nonce();
    let now = Date.now();
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      await scripts.reserveNonce(key, now++, 4000, 60_000, Date.now() + 64_000);
      report.latenciesUs.push(Number(process.hrtime.bigint() - t0) / 1000);
      report.count++;
    }
  }
  redis.disconnect();
  process.send?.(report, () => process.exit(0));
}

function runChildren(url: string, mode: string): Promise<ChildReport[]> {
  return Promise.all(
    Array.from({ length: PROCESSES }, (_, i) =>
      new Promise<ChildReport>((resolve, reject) => {
        const c = fork(__filename, [CHILD_FLAG, url, mode, String(i)], { stdio: 'inherit' });
        c.once('message', (m) => resolve(m as ChildReport));
        c.once('error', reject);
        c.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`nonce bench child exited ${code}`))));
      }),
    ),
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function run(): Promise<BenchRow[]> {
  const server = await startThrowawayRedis();
  try {
    const rows: BenchRow[] = [];
    for (const mode of ['raw', 'shared']) {
      const reports = await runChildren(server.url, mode);
      const total = reports.reduce((s, r) => s + r.count, 0);
      const lat = reports.flatMap((r) => r.latenciesUs).sort((a, b) => a - b);
      const throttled = reports.reduce((s, r) => s + r.throttled, 0);
      const what = mode === 'raw' ? 'reserve-nonce script, no throttle' : 'RedisNonceSource, one shared API key';
      rows.push({
        name: `nonce allocations/s, ${PROCESSES} processes (${what})`,
        value: Math.round(total / (DURATION_MS / 1000)),
        unit: 'ops/s',
        note: `${total} in ${DURATION_MS} ms; p50 ${percentile(lat, 50).toFixed(0)} µs, p99 ${percentile(lat, 99).toFixed(0)} µs${mode === 'shared' ? `; ${throttled} throttle waits (1 nonce/ms + 4 s lead cap)` : ''}`,
      });
    }
    return rows;
  } finally {
    await server.stop();
  }
}

if (process.argv[2] === CHILD_FLAG) {
  child(process.argv[3] as string, process.argv[4] as string, process.argv[5] as string).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else if (require.main === module) {
  run().then((rows) => console.table(rows), (e: unknown) => { console.error(e); process.exitCode = 1; });
}

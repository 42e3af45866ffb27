import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SystemClock } from '../src/core/clock';
import { HttpExchangeClient } from '../src/exchange/http/client';
import { InMemoryNonceSource } from '../src/exchange/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../src/limiter/in-memory-limiter';
import { LIMITS, LIMIT_IDS, type LimitTable } from '../src/limiter/limits';
import { startSimulatedExchange, type SimAccountOptions } from '../src/simulator/start-simulated-exchange';
import type { BenchRow } from './bench-types';

/**
 * Signed private requests per second the simulated exchange serves on loopback, driven by the
 * project's own HttpExchangeClient (zod-checked request, nonce, HMAC-SHA512, ky/undici, zod-parsed
 * answer). 32 concurrent callers, one API key each (a key's nonces must stay within the +-5 s window,
 * which caps one key near 1,000 requests per second), rate limits off on both sides.
 *
 * Two set-ups: the server on a worker thread (its own core: what the server can serve) and the
 * server in the same thread as the clients (paper mode's layout, client and server share one core).
 */
const CONCURRENCY = 32;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;

const accounts: SimAccountOptions[] = Array.from({ length: CONCURRENCY }, (_, i) => ({
  apiKey: `bench-key-${i}`, apiSecret: `bench-secret-${i}`, funding: { trading: { USDT: '10000', BTC: '1' } },
}));
const HUGE: LimitTable = Object.fromEntries(LIMIT_IDS.map((id) => [id, { capacity: 1e9, windowMs: LIMITS[id].windowMs }])) as LimitTable;

async function drive(url: string, call: (c: HttpExchangeClient) => Promise<unknown>): Promise<{ perSecond: number; errors: number }> {
  const clock = new SystemClock();
  const clients = accounts.map((a) => new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: a.apiKey, apiSecret: a.apiSecret },
    nonceSource: new InMemoryNonceSource(clock), limiter: new InMemoryRateLimiter({ limits: HUGE, clock }), clock, timeoutMs: 10_000,
  }));
  let counting = false;
  let done = 0;
  let errors = 0;
  let stop = false;
  const loops = clients.map(async (client) => {
    while (!stop) {
      try {
        await call(client);
        if (counting) done += 1;
      } catch {
        if (counting) errors += 1;
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  counting = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, DURATION_MS));
  counting = false;
  const elapsed = performance.now() - started;
  stop = true;
  await Promise.all(loops);
  return { perSecond: Math.round((done / elapsed) * 1000), errors };
}

/** Starts the simulator on a worker thread (compiled JS under dist/) and returns its URL. */
async function startOnWorker(): Promise<{ url: string; worker: Worker }> {
  const modulePath = join(__dirname, '..', 'src', 'simulator', 'start-simulated-exchange.js');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { startSimulatedExchange } = require(workerData.modulePath);
    startSimulatedExchange({ accounts: workerData.accounts, speed: 0, start: 1700000040, rateLimits: false })
      .then((sim) => {
        parentPort.postMessage(sim.url);
        parentPort.on('message', () => sim.close().then(() => process.exit(0)));
      });`;
  const worker = new Worker(code, { eval: true, workerData: { modulePath, accounts } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url, worker };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const balance = (c: HttpExchangeClient) => c.fetchTradingBalances();
  const active = (c: HttpExchangeClient) => c.fetchActiveOrders({ market: 'BTC_USDT' });

  const { url, worker } = await startOnWorker();
  try {
    const b = await drive(url, balance);
    rows.push({ name: 'trade-account/balance, server on its own thread', value: b.perSecond, unit: 'req/s', note: `32 callers, ${b.errors} errors` });
    const a = await drive(url, active);
    rows.push({ name: 'orders (active), server on its own thread', value: a.perSecond, unit: 'req/s', note: `32 callers, ${a.errors} errors` });
  } finally {
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('exit', resolve));
  }

  const sim = await startSimulatedExchange({ accounts, speed: 0, start: 1_700_000_040, rateLimits: false });
  try {
    const b = await drive(sim.url, balance);
    rows.push({ name: 'trade-account/balance, server and clients in one thread', value: b.perSecond, unit: 'req/s', note: `32 callers, ${b.errors} errors` });
  } finally {
    await sim.close();
  }
  return rows;
}

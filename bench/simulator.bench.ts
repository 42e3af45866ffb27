import { Agent, request } from 'node:http';
import ky from 'ky';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SystemClock } from '../src/core/clock';
import { HttpExchangeClient } from '../src/exchange/http/client';
import { signRequest } from '../src/exchange/http/sign';
import { NOT_JSON, type Transport, type TransportRequest, type TransportResponse } from '../src/exchange/http/transport';
import { InMemoryNonceSource } from '../src/exchange/nonce/in-memory-nonce-source';
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

/**
 * A keep-alive node:http transport for the client. Node's fetch (undici, under ky) tops out near
 * 1,000 requests per second on this machine even against an empty server, so it would measure fetch,
 * not the simulator; the client's own work (request rules, nonce, signing, zod parsing) is unchanged.
 */
class NodeHttpTransport implements Transport {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  send(req: TransportRequest): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      const r = request(req.url, { method: req.method, agent: this.agent, headers: { Accept: 'application/json', ...req.headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => { text += chunk; });
        res.on('end', () => {
          let json: unknown = NOT_JSON;
          try { json = text === '' ? NOT_JSON : JSON.parse(text); } catch { json = NOT_JSON; }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      });
      r.on('error', reject);
      r.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** ky over Node's global fetch (undici): the client's default transport before the keep-alive pool. */
class KyGlobalFetchTransport implements Transport {
  private readonly http = ky.create({ retry: 0, throwHttpErrors: false, timeout: 10_000 });

  async send(req: TransportRequest): Promise<TransportResponse> {
    const res = await this.http(req.url, { method: req.method, headers: { Accept: 'application/json', ...req.headers }, ...(req.body === undefined ? {} : { body: req.body }) });
    const text = await res.text();
    let json: unknown = NOT_JSON;
    try { json = text === '' ? NOT_JSON : JSON.parse(text); } catch { json = NOT_JSON; }
    return { status: res.status, text, json };
  }
}

async function drive(url: string, call: (c: HttpExchangeClient) => Promise<unknown>, transport?: Transport): Promise<{ perSecond: number; errors: number }> {
  const clock = new SystemClock();
  const clients = accounts.map((a) => new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: a.apiKey, apiSecret: a.apiSecret },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ limits: HUGE, clock }), clock, timeoutMs: 10_000,
    ...(transport === undefined ? {} : { transport }),
  }));
  clients.forEach((c, i) => Object.assign(c, { benchKey: accounts[i] }));
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
  const note = (r: { errors: number }, transport: string) => `32 callers, ${transport}, ${r.errors} errors`;

  const { url, worker } = await startOnWorker();
  const transport = new NodeHttpTransport();
  try {
    const b = await drive(url, balance, transport);
    rows.push({ name: 'trade-account/balance, server on its own thread', value: b.perSecond, unit: 'req/s', note: note(b, 'node:http keep-alive') });
    const a = await drive(url, active, transport);
    rows.push({ name: 'orders (active), server on its own thread', value: a.perSecond, unit: 'req/s', note: note(a, 'node:http keep-alive') });
    // The same signed request without the client's own work: what the server alone can serve.
    const path = '/api/v4/trade-account/balance';
    const nonces = new Map<string, number>();
    const raw = await drive(url, async (c) => {
      const key = (c as unknown as { benchKey: SimAccountOptions }).benchKey;
      const nonce = Math.max(Date.now(), (nonces.get(key.apiKey) ?? 0) + 1);
      nonces.set(key.apiKey, nonce);
      const signed = signRequest(key, path, nonce, {}, true);
      const res = await transport.send({ endpoint: 'tradeBalance', method: 'POST', url: `${url}${path}`, headers: signed.headers, body: signed.body });
      if (res.status !== 200) throw new Error(String(res.status));
    }, transport);
    rows.push({ name: 'trade-account/balance, raw signed requests, server on its own thread', value: raw.perSecond, unit: 'req/s', note: note(raw, 'node:http keep-alive, no client-side checks') });
    // The client's default transport (ky over the node:http keep-alive pool), then ky over the global
    // fetch (the default before it), each right after the node:http row above: one run, same load.
    const k = await drive(url, balance);
    rows.push({ name: 'trade-account/balance, server on its own thread', value: k.perSecond, unit: 'req/s', note: note(k, 'default transport: ky over the node:http keep-alive pool') });
    const g = await drive(url, balance, new KyGlobalFetchTransport());
    rows.push({ name: 'trade-account/balance, server on its own thread', value: g.perSecond, unit: 'req/s', note: note(g, 'ky over the global fetch (the default before)') });
    const b2 = await drive(url, balance, transport);
    rows.push({ name: 'trade-account/balance, server on its own thread (again)', value: b2.perSecond, unit: 'req/s', note: note(b2, 'node:http keep-alive') });
    const k2 = await drive(url, balance);
    rows.push({ name: 'trade-account/balance, server on its own thread (again)', value: k2.perSecond, unit: 'req/s', note: note(k2, 'default transport: ky over the node:http keep-alive pool') });
  } finally {
    transport.close();
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('exit', resolve));
  }

  const sim = await startSimulatedExchange({ accounts, speed: 0, start: 1_700_000_040, rateLimits: false });
  const local = new NodeHttpTransport();
  try {
    const b = await drive(sim.url, balance, local);
    rows.push({ name: 'trade-account/balance, server and clients in one thread', value: b.perSecond, unit: 'req/s', note: note(b, 'node:http keep-alive') });
  } finally {
    local.close();
    await sim.close();
  }
  return rows;
}

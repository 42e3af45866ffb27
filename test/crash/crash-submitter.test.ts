import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { CsvCandleRow } from '../../src/candle-files/csv-candles';
import { StoreKeys } from '../../src/store/keys';
import { RedisOrderStore } from '../../src/store/order-store';
import { mulberry32 } from '../../src/simulator/market/candle-source';
import { startSimulatedExchange, type SimulatedExchange } from '../../src/simulator/start-simulated-exchange';
import { compareJournalWithSim } from '../integration/execution/invariants';
import { RedisTestContext, testRedisUrl } from '../integration/store/redis-test-context';
import { startCountingProxy, type CountingProxy } from './counting-proxy';

// Twenty restarts, each reconciling up to 200 orders that fill meanwhile: minutes on a loaded machine.
jest.setTimeout(300_000);

const API_KEY = 'crash-key';
const API_SECRET = 'crash-secret';
const T0 = 1_700_000_040;
const BURST = 200;
const KILLS = 20;
const CHILD_DIR = join(__dirname, 'child');

interface Child {
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  waitFor(pattern: RegExp): Promise<void>;
}

function startChild(env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['-r', join(CHILD_DIR, 'register-ts.js'), join(CHILD_DIR, 'crash-submitter.ts')], {
    cwd: CHILD_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  let buffer = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) if (w.pattern.test(line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => lines.push(`stderr ${chunk.toString('utf8').trim()}`));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc, lines, exited,
    waitFor: (pattern) => new Promise<void>((resolve, reject) => {
      if (lines.some((l) => pattern.test(l))) return resolve();
      waiters.push({ pattern, resolve });
      void exited.then((code) => reject(new Error(`child exited (${code}) before ${pattern}:\n${lines.slice(-20).join('\n')}`)));
    }),
  };
}

const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let proxy: CountingProxy;
let ticker: NodeJS.Timeout | undefined;

afterEach(async () => {
  clearInterval(ticker);
  await proxy?.close();
  await sim?.close();
  await ctx.cleanup();
});

test(`a burst of ${BURST} intents, the submitting process SIGKILLed ${KILLS} times: no duplicate, none lost, journal matches the exchange, no nonce refused`, async () => {
  // The exchange lives in THIS process, so it survives the kills. Rate limits off: any 429 would be a refused nonce.
  // Its market moves while the children run and die (a minute every 25 ms, a wave between 92.5 and 111.5 trading
  // 0.5 BTC a minute), so with the default fill model (10 % of the volume) the 0.1 BTC orders fill in parts,
  // over several candles, while the submitter is being killed.
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '10000000', BTC: '1000' }, collateralBalances: { USDT: '1000000' },
    markets: [{ name: 'BTC_USDT', rows: waveRows(T0, 6000) }], speed: 0, start: T0, rateLimits: false,
  });
  ticker = setInterval(() => sim.advanceBy(60), 25);
  proxy = await startCountingProxy(sim.url);
  const prefix = ctx.prefix();
  const env = {
    CRASH_SIM_URL: proxy.url, CRASH_REDIS_URL: testRedisUrl(), CRASH_PREFIX: prefix, CRASH_API_KEY: API_KEY,
    CRASH_API_SECRET: API_SECRET, CRASH_BURST: String(BURST), CRASH_T0: String(T0),
  };
  // Seeded (the simulator's mulberry32): the kill points are the same on every run.
  const random = mulberry32(20240601);
  const log: string[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const child = startChild(env);
    await child.waitFor(/^ready$/); // reconciled first
    // A random point inside the burst: after a random batch (0..196) has been answered, plus a random
    // 0-20 ms, so the kill lands anywhere: between journal and send, mid-request, mid-outcome write.
    const batch = Math.floor(random() * (BURST / 4)) * 4;
    await child.waitFor(new RegExp(`^batch ${batch} `));
    await new Promise((r) => setTimeout(r, Math.floor(random() * 20)));
    child.proc.kill('SIGKILL');
    await child.exited;
    log.push(`${batch}/${child.lines.filter((l) => l.startsWith('batch')).length * 4}`);
  }
  // The market stops before the last start, so its final reconciliation sees the exchange's final state.
  clearInterval(ticker);
  const last = startChild(env);
  await last.waitFor(/^done$/);
  expect(await last.exited).toBe(0);

  const redis = await ctx.client();
  const store = new RedisOrderStore({ redis, keys: StoreKeys.forApiKey(API_KEY, prefix) });
  const records = await store.listAll(1000);
  // every intent is journaled: 180 stop-limits + 20 OCOs of two legs
  expect(records).toHaveLength(180 + 40);
  const cmp = compareJournalWithSim(records, sim.engine, API_KEY);
  expect(cmp.duplicates).toEqual([]);
  expect(cmp.unknownToJournal).toEqual([]);
  expect(cmp.unsettled).toEqual([]);
  expect(cmp.mismatches).toEqual([]);
  // Partial fills did happen, and the journal (compared above, amounts included) followed them.
  const deals = sim.engine.deals(API_KEY);
  const filledOrders = new Set(deals.map((d) => d.orderId)).size;
  expect(deals.length).toBeGreaterThan(filledOrders);
  // ... and the journal saw orders part-filled on the way (between kills, restarts and reconciliations).
  expect(records.filter((r) => r.history.some((h) => h.event === 'fill_partially')).length).toBeGreaterThan(0);
  expect(proxy.counts.status429).toBe(0);
  expect(proxy.counts.total).toBeGreaterThan(BURST);
  console.log(`crash test: kill points (target batch / intents answered) ${log.join(' ')}; placed ${cmp.placed}; journal ${records.length}; http answers ${proxy.counts.total}; rejected ${records.filter((r) => r.status === 'rejected').length}; deals ${deals.length} over ${filledOrders} orders`);
});

/** 1m rows of a wave around 102 (92.5 .. 111.5, two-hour period), 0.5 BTC a minute. */
function waveRows(start: number, count: number): CsvCandleRow[] {
  const price = (i: number): number => 102 + 9.5 * Math.sin((2 * Math.PI * i) / 120);
  return Array.from({ length: count }, (_, i) => {
    const open = price(i);
    const close = price(i + 1);
    return {
      time: start + i * 60, open: open.toFixed(2), close: close.toFixed(2),
      high: (Math.max(open, close) + 0.3).toFixed(2), low: (Math.min(open, close) - 0.3).toFixed(2), volume: '0.5',
    };
  });
}

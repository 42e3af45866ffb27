import * as path from 'node:path';
import { mulberry32 } from '../../src/simulator/market/candle-source';
import { startSimulatedExchange, type SimulatedExchange } from '../../src/simulator/start-simulated-exchange';
import { storeKeysFor } from '../../src/app/account-store';
import { RedisOrderStore } from '../../src/store/order-store';
import { SystemClock } from '../../src/core/clock';
import { DaemonProcess, requireBuild, ROOT, TEST_STRATEGIES, writeConfig, type LogLine } from '../integration/app/daemon-process';
import { compareJournalWithSim } from '../integration/execution/invariants';
import { RedisTestContext, testRedisUrl } from '../integration/store/redis-test-context';

/**
 * The whole daemon (`tradebot run`, paper mode, Redis) against a simulated venue that outlives it:
 * a running simulator reached by URL (paper.exchangeUrl), which keeps its orders and balances and
 * its own accelerated clock, read by the daemon through GET /_sim/clock. The daemon is SIGKILLed at
 * 50 random points, with the simulator losing 20 % of the order answers, stop-limit and OCO alike (the
 * order IS created, the answer never arrives), and answering OCO legs as the venue documents them (no
 * client order id: a lost OCO answer is settled by fingerprint), and restarted each time: 36 kills at random in its first 2 s (boot, Redis,
 * reconciliation, settling pending intents, warm-up, and trading on a fast machine), 14 while it trades (fewer: each first waits for 'tradebot started', about three times the cost of a kill in start-up, in the suite's longest file); the last of those waits until an OCO is journaled, so a slow machine kills across OCOs too. Afterwards every client order id on the
 * simulator appears exactly once, matches the journal (status, amounts, order id), and no journaled
 * intent is left unsettled; no OCO rests at the venue that the journal does not own. Each restart takes its dead predecessor's leases over at once (same host,
 * pid gone: src/app/dead-owner.ts), so it trades again without waiting for their TTL.
 *
 * Run twice: with REST polling only (`exchange.streams: off`), and with every stream on while the
 * simulator's WebSocket twin sends every push twice and drops every connection every 2.5 s
 * (docs/streams.md): the journal must end the same way, every order exactly once.
 */
jest.setTimeout(600_000); // two strategy guests start on each of the 51 starts

const API_KEY = 'daemon-crash-key';
const API_SECRET = 'daemon-crash-secret';
// 50 + 20 kills (was 70 + 30, and 100 + 40 before): each start costs about 2 s of CPU on the 2-core CI
// machine, where `npm test` has 10 minutes; the kill points stay random across start-up and trading.
const KILLS = 50;
const STARTUP_KILLS = 36;
const CSV = path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv');
const FIRST_CANDLE = 1631917380;

const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let running: DaemonProcess | undefined;

beforeAll(() => requireBuild());
let cleanupPrefix: string | undefined;
afterEach(async () => {
  await running?.kill();
  await sim?.close();
  if (cleanupPrefix !== undefined) {
    const redis = await ctx.client();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${cleanupPrefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
  await ctx.cleanup();
});

const started = (l: LogLine): boolean => l.msg === 'tradebot started';

test('a paper daemon SIGKILLed at 50 random points with lost answers: every order on the venue once, matching the journal, nothing lost', async () => {
  await crashRun({ kills: KILLS, startupKills: STARTUP_KILLS, streams: 'off' });
});

test('the same with streams on and the WebSocket faults switched on (pushes twice, connections dropped every 2.5 s): every order once, journal equal to the venue', async () => {
  await crashRun({ kills: 20, startupKills: 13, streams: 'all', wsFaults: { duplicatePushes: true, dropEveryMs: 2500 } });
});

async function crashRun(o: { kills: number; startupKills: number; streams: 'off' | 'all'; wsFaults?: { duplicatePushes: boolean; dropEveryMs: number } }): Promise<void> {
  // The config's keyPrefix allows no ':'; the keys go under `${prefix}:` and are deleted below.
  const prefix = `tbcrash-${Date.now().toString(36)}`;
  cleanupPrefix = prefix;
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' }, collateralBalances: { USDT: '100000' },
    markets: [{ name: 'BTC_USDT', csvPath: CSV }], start: FIRST_CANDLE + 600, speed: 300, seed: 7,
    faults: { lostAnswerRate: 0.2, endpoints: ['stopLimit', 'collateralOco'] },
    ...(o.wsFaults === undefined ? {} : { ws: { faults: o.wsFaults } }),
  });
  const cfg = writeConfig({
    mode: 'paper',
    paper: { exchangeUrl: sim.url },
    exchange: { streams: o.streams },
    redis: { keyPrefix: prefix },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }, { name: 'churn-oco' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    killSwitch: { enabled: false },
    reconcile: { intervalSeconds: 1 },
    metrics: { port: 0, host: '127.0.0.1' },
    log: { level: 'info' },
    shutdown: { graceMs: 5000 },
  });
  const env = { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  const random = mulberry32(20261123);
  let killedWhileTrading = 0;
  const store = new RedisOrderStore({ redis: await ctx.client(), keys: storeKeysFor('paper', API_KEY, prefix), clock: new SystemClock() });
  try {
    for (let i = 0; i < o.kills; i++) {
      running = new DaemonProcess(['run', '--config', cfg.file], env);
      if (i < o.startupKills) {
        await sleep(Math.floor(random() * 2000));
      } else {
        await running.waitForLine(started, 60_000, 'tradebot started');
        // A slow machine trades little in the random windows: the last one lasts until an OCO is journaled.
        if (i === o.kills - 1) await untilOcoJournaled(store);
        await sleep(Math.floor(random() * 600));
      }
      if (running.lines.some(started)) killedWhileTrading++;
      await running.kill();
    }
    expect(sim.faults.injected().lostAnswer).toBeGreaterThan(0);

    // The venue freezes (no fill can race the comparison); one more start settles the journal.
    sim.setSpeed(0);
    const last = new DaemonProcess(['run', '--config', cfg.file], env);
    running = last;
    await last.waitForLine(started, 60_000, 'tradebot started');
    let cmp = compareJournalWithSim(await store.listAll(100_000), sim.engine, API_KEY);
    for (let i = 0; i < 120 && (cmp.unsettled.length > 0 || cmp.mismatches.length > 0); i++) {
      await sleep(500); // the daemon's reconciliation (every second) brings the journal up to date
      cmp = compareJournalWithSim(await store.listAll(100_000), sim.engine, API_KEY);
    }
    last.signal('SIGTERM');
    expect((await last.exit()).code).toBe(0);

    const records = await store.listAll(100_000);
    cmp = compareJournalWithSim(records, sim.engine, API_KEY);
    expect(cmp.duplicates).toEqual([]); // every client order id on the venue exactly once
    expect(cmp.unknownToJournal).toEqual([]); // every order on the venue is journaled
    expect(cmp.unsettled).toEqual([]); // no intent left pending / submitted / unknown
    expect(cmp.mismatches).toEqual([]); // status, amounts and order ids match
    expect(killedWhileTrading).toBeGreaterThanOrEqual(o.kills - o.startupKills);
    expect(cmp.placed).toBeGreaterThan(0); // it really traded between the kills
    const ocoLegs = records.filter((r) => r.kind !== 'stop_limit');
    expect(ocoLegs.length).toBeGreaterThan(0); // OCOs were placed too
    // Every OCO leg at the venue (open or finished) is a journal record's order, by its order id: no orphan OCO.
    const venueLegs = [...sim.engine.activeOcos(API_KEY).flatMap((o) => [o.stopLoss, o.takeProfit]),
      ...sim.engine.orderHistory(API_KEY).filter((o) => o.ocoId !== undefined)];
    const journaledIds = new Set(ocoLegs.flatMap((r) => (r.orderId === undefined ? [] : [r.orderId])));
    expect(venueLegs.filter((o) => !journaledIds.has(o.id)).map((o) => `${o.ocoId}/${o.id}`)).toEqual([]);
    if (o.streams !== 'off') expect(sim.engine.deals(API_KEY).length).toBeGreaterThan(0);
    console.log(`daemon crash test (streams ${o.streams}${o.wsFaults === undefined ? '' : ', WebSocket faults on'}): ${o.kills} kills (${killedWhileTrading} after 'tradebot started'); ${cmp.placed} orders on the simulator, `
      + `${records.length} journal records (${ocoLegs.length} OCO legs), ${sim.faults.injected().lostAnswer} answers lost, ${sim.engine.deals(API_KEY).length} deals`);
  } finally {
    cfg.cleanup();
  }
}

async function untilOcoJournaled(store: RedisOrderStore): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await store.listAll(100_000)).some((r) => r.kind !== 'stop_limit')) return;
    await sleep(100);
  }
  throw new Error('no OCO journaled within 60 s of trading');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

import * as path from 'node:path';
import { storeKeysFor } from '../../src/app/account-store';
import { SystemClock } from '../../src/core/clock';
import { mulberry32 } from '../../src/simulator/market/candle-source';
import { startSimulatedExchange, type SimulatedExchange } from '../../src/simulator/start-simulated-exchange';
import { RedisOrderStore } from '../../src/store/order-store';
import { connectRedis, createRedis } from '../../src/store/redis';
import { startSentinelGroup, type SentinelGroup } from '../helpers/redis-topology';
import { DaemonProcess, requireBuild, ROOT, TEST_STRATEGIES, writeConfig, type LogLine } from '../integration/app/daemon-process';
import { compareJournalWithSim } from '../integration/execution/invariants';

/**
 * The failover drill of issue #32: one Redis primary, two replicas and three sentinels; two daemon
 * replicas find the primary through the sentinels (TRADEBOT_REDIS_SENTINELS) and trade one strategy
 * (one holds its lease) against a simulator that outlives everything. The primary is SIGKILLed
 * KILLS times, every other time right after a daemon logged "order submitted" (between a journal
 * write and the next ones), and comes back as a replica. With redis.replicaAcks 1 no order is sent
 * whose record a replica has not confirmed: afterwards every order on the venue is journaled once,
 * matches the journal, and nothing is left unsettled. The time from each primary's death to the next
 * accepted order is printed (p50/p99; docs/redis.md keeps the figures).
 */
jest.setTimeout(300_000);

const API_KEY = 'failover-drill-key';
const API_SECRET = 'failover-drill-secret';
// Six kills in npm test (the runs in docs/redis.md had ten): each costs an election of about 5 s of the
// suite's 10 minutes; three of them still land right after an order was submitted.
const KILLS = Number(process.env['TB_DRILL_KILLS'] ?? '6');
if (!Number.isInteger(KILLS) || KILLS < 2 || KILLS % 2 !== 0) throw new Error(`TB_DRILL_KILLS must be an even number of kills, at least 2, got ${process.env['TB_DRILL_KILLS']}`);
/** 1 in the suite; `TB_DRILL_REPLICA_ACKS=0 npx jest test/crash/failover-drill.test.ts` measures asynchronous replication (docs/redis.md). */
const REPLICA_ACKS = Number(process.env['TB_DRILL_REPLICA_ACKS'] ?? '1');
const CSV = path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv');
const FIRST_CANDLE = 1631917380;

let group: SentinelGroup | undefined;
let sim: SimulatedExchange | undefined;
const daemons: DaemonProcess[] = [];
beforeAll(() => requireBuild());
afterAll(async () => {
  for (const d of daemons) await d.kill();
  await sim?.close();
  await group?.stop();
});

const msg = (text: string) => (l: LogLine): boolean => l.msg === text;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test(`failover drill: ${KILLS} primary SIGKILLs under two daemons with replicaAcks ${REPLICA_ACKS}: no order lost, duplicated or orphaned`, async () => {
  group = await startSentinelGroup(2);
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' },
    markets: [{ name: 'BTC_USDT', csvPath: CSV }], start: FIRST_CANDLE + 600, speed: 300, seed: 11,
  });
  const prefix = `tbdrill-${Date.now().toString(36)}`;
  const cfg = writeConfig({
    mode: 'paper', paper: { exchangeUrl: sim.url }, exchange: { streams: 'off' },
    redis: { keyPrefix: prefix, replicaAcks: REPLICA_ACKS, replicaAckTimeoutMs: 500 },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    killSwitch: { enabled: false }, reconcile: { intervalSeconds: 1 }, metrics: { port: 0, host: '127.0.0.1' },
    log: { level: 'info' }, shutdown: { graceMs: 5000 },
  });
  const env = {
    TRADEBOT_REDIS_SENTINELS: group.sentinels.map((s) => `${s.host}:${s.port}`).join(','), TRADEBOT_REDIS_SENTINEL_NAME: group.name,
    TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET,
  };
  try {
    for (let i = 0; i < 2; i++) daemons.push(new DaemonProcess(['run', '--config', cfg.file], env));
    for (const d of daemons) await d.waitForLine(msg('tradebot started'), 60_000, 'tradebot started');
    const accepted = (): number => daemons.reduce((n, d) => n + d.count(msg('order accepted')), 0);
    const submitted = (): number => daemons.reduce((n, d) => n + d.count(msg('order submitted')), 0);
    await waitFor(() => accepted() > 0, 60_000, 'a first accepted order');

    const random = mulberry32(20261128);
    const recoveries: number[] = [];
    let killedAfterSubmit = 0;
    for (let i = 0; i < KILLS; i++) {
      if (i % 2 === 0) {
        const before = submitted();
        await waitFor(() => submitted() > before, 30_000, 'an order submitted');
        killedAfterSubmit++;
      } else {
        await sleep(Math.floor(random() * 1000));
      }
      const before = accepted();
      const killedAt = Date.now();
      await group.killPrimary();
      await waitFor(() => accepted() > before, 60_000, `an accepted order after kill ${i + 1}`);
      recoveries.push(Date.now() - killedAt);
    }

    // The venue freezes (no fill can race the comparison); the daemons' reconciliation settles the journal.
    sim.setSpeed(0);
    const redis = createRedis({ kind: 'sentinel', sentinels: group.sentinels, name: group.name, tls: false }, { lazyConnect: true });
    try {
      await connectRedis(redis, 10_000);
      const store = new RedisOrderStore({ redis, keys: storeKeysFor('paper', API_KEY, prefix), clock: new SystemClock() });
      // The test's own client follows the group too: a late +switch-master from a sentinel drops it for a
      // reconnect, and without an offline queue a read in that moment fails. Read again, as the daemons do.
      const journal = async (): Promise<Awaited<ReturnType<typeof store.listAll>>> => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await store.listAll(100_000);
          } catch (err) {
            if (attempt >= 40) throw err;
            await sleep(250);
          }
        }
      };
      let cmp = compareJournalWithSim(await journal(), sim.engine, API_KEY);
      for (let i = 0; i < 120 && (cmp.unsettled.length > 0 || cmp.mismatches.length > 0 || cmp.unknownToJournal.length > 0); i++) {
        await sleep(500);
        cmp = compareJournalWithSim(await journal(), sim.engine, API_KEY);
      }
      for (const d of daemons) d.signal('SIGTERM');
      for (const d of daemons) expect((await d.exit()).code).toBe(0);
      cmp = compareJournalWithSim(await journal(), sim.engine, API_KEY);
      expect(cmp.duplicates).toEqual([]);
      expect(cmp.unknownToJournal).toEqual([]); // no orphan: every order on the venue is journaled
      expect(cmp.unsettled).toEqual([]);
      expect(cmp.mismatches).toEqual([]);
      expect(killedAfterSubmit).toBe(KILLS / 2);
      const sorted = [...recoveries].sort((a, b) => a - b);
      const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number;
      const denied = daemons.reduce((n, d) => n + d.count((l) => l.msg === 'intent denied' && l['rule'] === 'journal_replication'), 0);
      const adopted = daemons.reduce((n, d) => n + d.count((l) => /adopt/i.test(l.msg)), 0);
      console.log(`failover drill (replicaAcks ${REPLICA_ACKS}): ${KILLS} primary kills (${killedAfterSubmit} right after an order was submitted); ${cmp.placed} orders on the venue, `
        + `all journaled once; ${denied} intents refused as not replicated; ${adopted} adoption lines; primary death -> next accepted order p50 ${q(0.5)} ms, p99 ${q(0.99)} ms (${sorted.join(', ')})`);
    } finally {
      redis.disconnect();
    }
  } finally {
    cfg.cleanup();
  }
});

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms\n${daemons.map((d) => d.tail(8)).join('\n---\n')}`);
    await sleep(50);
  }
}

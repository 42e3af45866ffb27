import { startSimulatedExchange, type SimulatedExchange } from '../../src/simulator/start-simulated-exchange';
import { storeKeysFor } from '../../src/app/account-store';
import { RedisTrailingStore } from '../../src/store/trailing-store';
import type { TrailingStopRecord } from '../../src/store/trailing-store-port';
import { DaemonProcess, requireBuild, ROOT, writeConfig, type LogLine } from '../integration/app/daemon-process';
import { backtestTrailer, legOverlaps, TRAIL_CSV, TRAIL_STRATEGIES } from '../integration/backtest/trailing-run';
import { RedisTestContext, testRedisUrl } from '../integration/store/redis-test-context';
import * as path from 'node:path';

/**
 * Trailing stops in the daemon (`tradebot run`, paper, Redis) against a standalone simulator on real
 * recorded candles, the fixture strategy `trailer` (test/fixtures/trailing). One daemon run checks:
 * - the stop moves at the same candles, to the same triggers, as the backtest of the same strategy
 *   on the same candles (legs 0..4, leg 4 placed by the recovery on the first candle after the restart);
 * - at the venue, each leg was created only after the one before it had ended (never two resting);
 * - SIGKILL during a move (TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG=4: after the move is journaled and
 *   leg 3 is cancelled, before leg 4 is sent: nothing rests) and a restart: exactly one leg of the
 *   logical order rests at the venue, the one the trailing journal names, `resting`.
 */
jest.setTimeout(180_000);

const API_KEY = 'trailing-kill-key';
const API_SECRET = 'trailing-kill-secret';
const START = 1634264280 - 2 * 60;
const KILL_BEFORE_LEG = 4;

const ctx = new RedisTestContext();
let sim: SimulatedExchange | undefined;
let running: DaemonProcess | undefined;

beforeAll(() => requireBuild());
afterEach(async () => {
  await running?.kill();
  await sim?.close();
  await ctx.cleanup();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const line = (m: string) => (l: LogLine): boolean => l.msg === m;

test('paper moves the stop at the backtest\'s candles; SIGKILL mid-move and a restart leave exactly one leg resting', async () => {
  const prefix = ctx.configPrefix('tbtrail');
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' },
    markets: [{ name: 'BTC_USDT', csvPath: TRAIL_CSV }], start: START, speed: 60, seed: 7,
  });
  const cfg = writeConfig({
    mode: 'paper', paper: { exchangeUrl: sim.url }, redis: { keyPrefix: prefix },
    strategies: { dir: path.join(ROOT, TRAIL_STRATEGIES), enabled: [{ name: 'trailer' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    killSwitch: { enabled: false }, reconcile: { intervalSeconds: 1 }, metrics: { port: 0, host: '127.0.0.1' },
    log: { level: 'info' }, shutdown: { graceMs: 5000 },
  });
  const env = { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  const journal = new RedisTrailingStore(await ctx.client(), storeKeysFor('paper', API_KEY, prefix));
  try {
    // Run 1: trades until it kills itself right before sending leg 4.
    running = new DaemonProcess(['run', '--config', cfg.file], { ...env, TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG: String(KILL_BEFORE_LEG) });
    const exit = await Promise.race([running.exit(), sleep(60_000).then(() => undefined)]);
    if (exit?.signal !== "SIGKILL") throw new Error(`run 1 ended ${JSON.stringify(exit)}: ${running.stderr}\n${running.lines.filter((l) => /trail|denied|intent|rejected/i.test(l.msg) && l.msg !== "trailer sees").slice(0, 8).map((l) => JSON.stringify(l)).join("\n")}`);
    expect(running.count(line('trailing stop moved'))).toBe(KILL_BEFORE_LEG - 1);
    const [crashed] = await journal.listActive();
    expect(crashed).toMatchObject({ phase: 'moving', leg: { leg: KILL_BEFORE_LEG - 1 }, next: { leg: KILL_BEFORE_LEG } });
    const legIds = (r: TrailingStopRecord): string[] => [...r.moves.map((m) => m.clientOrderId), ...(r.next === undefined ? [] : [r.next.clientOrderId])];
    const restingLegs = (ids: readonly string[]) => sim!.engine.activeOrders(API_KEY).filter((o) => ids.includes(o.clientOrderId));
    // The worst moment: leg 3 cancelled, leg 4 not sent. Nothing rests.
    expect(restingLegs(legIds(crashed!))).toEqual([]);

    // Run 2: the recovery finishes the move; then the venue is frozen and compared.
    running = new DaemonProcess(['run', '--config', cfg.file], env);
    // The recovery sends leg 4 on the first settled candle (its risk checks need that candle's price).
    await running.waitForLine((l) => l.msg === 'trailing stop moved' && l['leg'] === KILL_BEFORE_LEG, 60_000, 'leg 4 sent by the recovery');
    sim.setSpeed(0);
    await running.waitForLine(line('tradebot started'), 60_000, 'start');
    await sleep(1500); // a candle in flight when the venue froze is handled
    const [recovered] = await journal.listActive();
    expect(recovered).toMatchObject({ id: crashed!.id, phase: 'resting' });
    expect(recovered!.leg.leg).toBeGreaterThanOrEqual(KILL_BEFORE_LEG);
    const ids = legIds(recovered!);
    const resting = restingLegs(ids);
    expect(resting.map((o) => o.clientOrderId)).toEqual([recovered!.leg.clientOrderId]); // exactly one, the journal's
    expect(legOverlaps([...sim.engine.orderHistory(API_KEY), ...sim.engine.activeOrders(API_KEY)], ids)).toEqual([]);
    running.signal('SIGTERM');
    expect((await running.exit()).code).toBe(0);

    // The backtest of the same strategy on the same candles, placed on the daemon's placement candle.
    const placeAt = recovered!.candleTime;
    const bt = await backtestTrailer({ from: placeAt - 5 * 60, to: placeAt + 45 * 60, params: { placeAt } });
    const daemonLegs = recovered!.moves.slice(0, KILL_BEFORE_LEG + 1).map((m) => ({ candleTime: m.candleTime, trigger: m.trigger, id: m.clientOrderId }));
    const backtestLegs = bt.legs.slice(0, KILL_BEFORE_LEG + 1).map((e, i) => ({ candleTime: i === 0 ? e.candleTime : e.time - 60, trigger: e.activationPrice!.toString(), id: e.clientOrderId }));
    console.log(`trailing stop: daemon legs ${JSON.stringify(daemonLegs)}; backtest ${JSON.stringify(backtestLegs)}`);
    expect(daemonLegs).toHaveLength(KILL_BEFORE_LEG + 1);
    expect(daemonLegs).toEqual(backtestLegs);
  } finally {
    cfg.cleanup();
  }
});

import Redis from 'ioredis';
import { Decimal } from '../../../src/domain/decimal';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { DaemonProcess, requireBuild, TEST_STRATEGIES, runCli, writeConfig, type LogLine } from './daemon-process';

/**
 * The kill-switch as a dead man's switch, end to end: a simulated exchange started HERE (so it
 * outlives the daemon) at real speed, the daemon in LIVE mode pointed at it with the simulator's
 * credentials. While the daemon is healthy it re-arms the market's timer every 3 s (timeout 12 s),
 * halted or not: halted means "no new orders", not "let the exchange cancel the protective stops".
 * A restart (SIGKILL, then a new process within the timeout) comes back in the stored trading state
 * and re-arms the timer before it runs out; a daemon that stays dead gets its orders canceled.
 */
jest.setTimeout(90_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbtest-app-ks-${process.pid}-${Date.now()}`;
const API_KEY = 'ks-test-key';
const API_SECRET = 'ks-test-secret-0123456789';
const ENV = {
  TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX, TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET,
};

let sim: SimulatedExchange;
let daemon: DaemonProcess | undefined;
let cfg: ReturnType<typeof writeConfig>;
let redis: Redis;

beforeAll(async () => {
  requireBuild();
  // Random-walk market on the wall clock (speed 1): the live daemon's candle schedule is wall time.
  sim = await startSimulatedExchange({ apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' }, markets: [{ name: 'BTC_USDT' }], speed: 1 });
  cfg = writeConfig({
    mode: 'live',
    exchange: { baseUrl: sim.url, timeoutMs: 3000 },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }] },
    killSwitch: { enabled: true, markets: ['BTC_USDT'], timeoutSeconds: 12, refreshSeconds: 3 },
    // Live mode requires its limits (config/live-limits.ts); generous, the churn orders are small.
    risk: { defaults: { maxNotionalPerOrder: '100000', maxNotionalPerMarket: '1000000' }, dailyLossLimit: '100000', guardrails: { account: { drawdown: [{ max: '100000', window: '24h' }] } } },
    reconcile: { intervalSeconds: 1, unknownOrderPolicy: 'ignore' },
    metrics: { port: 0, host: '127.0.0.1' },
    shutdown: { graceMs: 5000 },
  });
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  await daemon?.kill();
  await sim?.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  cfg?.cleanup();
});

/** A resting buy far below the market, placed directly in the exchange (not by the daemon). */
function restingOrder(): number {
  const last = sim.engine.lastPrice('BTC_USDT')!;
  return sim.engine.placeStopLimit(API_KEY, {
    market: 'BTC_USDT', side: 'buy', amount: new Decimal('0.001'),
    activationPrice: last.times('1.5').toDecimalPlaces(2), price: last.times('1.51').toDecimalPlaces(2),
  }).id;
}
const isOpen = (id: number): boolean => sim.engine.activeOrders(API_KEY, { market: 'BTC_USDT' }).some((o) => o.id === id);
const timer = () => sim.engine.killSwitchStatus(API_KEY, 'BTC_USDT')[0];

async function until(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${daemon?.tail() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('armed and refreshed while healthy AND while halted; a restart keeps the halted state and re-arms in time; a dead daemon gets its orders canceled', async () => {
  daemon = new DaemonProcess(['run', '--config', cfg.file], ENV);
  await daemon.waitForLine((l: LogLine) => l.msg === 'tradebot started', 20_000, 'start');
  await until('the kill-switch timer', () => timer() !== undefined, 10_000);

  // Healthy: the timer keeps moving forward.
  const order = restingOrder();
  const armedUntil = timer()!.cancellationTime;
  await until('two refreshes', () => (timer()?.cancellationTime ?? 0) >= armedUntil + 5, 15_000);
  expect(isOpen(order)).toBe(true);

  // Halt (operator): no new orders, but the timer is still re-armed and the order stays.
  expect(runCli(['pause', '--config', cfg.file], ENV).code).toBe(0);
  await daemon.waitForLine((l) => l.msg === 'trading state changed' && l['state'] === 'halted', 10_000, 'halt');
  const haltedAt = timer()!.cancellationTime;
  await until('refreshes while halted', () => (timer()?.cancellationTime ?? 0) >= haltedAt + 5, 15_000);
  expect(isOpen(order)).toBe(true);
  expect(daemon.count((l) => l.msg.startsWith('kill-switch NOT refreshed'))).toBe(0);

  // Crash and restart within the timeout: halted again (stored state), timer re-armed, order kept.
  daemon.signal('SIGKILL');
  await daemon.exit();
  const beforeRestart = timer()!.cancellationTime;
  daemon = new DaemonProcess(['run', '--config', cfg.file], ENV);
  const atStart = await daemon.waitForLine((l) => l.msg === 'trading state at start', 20_000, 'trading state at start');
  expect(atStart).toMatchObject({ state: 'halted', stored: 'halted' });
  await until('the timer re-armed by the new process', () => (timer()?.cancellationTime ?? 0) > beforeRestart, 15_000);
  expect(isOpen(order)).toBe(true);

  // Dead for good: the exchange cancels when the timer runs out.
  daemon.signal('SIGKILL');
  await daemon.exit();
  expect(isOpen(order)).toBe(true);
  await until('the kill-switch cancel after SIGKILL', () => !isOpen(order), 20_000);
  expect(sim.engine.orderHistory(API_KEY).find((o) => o.id === order)?.status).toBe('CANCELED');
});

import Redis from 'ioredis';
import * as path from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { DaemonProcess, requireBuild, ROOT, runCli, writeConfig, type LogLine } from './daemon-process';

/**
 * The kill-switch as a dead man's switch, end to end: a simulated exchange started HERE (so it
 * outlives the daemon) at real speed, the daemon in LIVE mode pointed at it with the simulator's
 * credentials. While the daemon is healthy it re-arms the market's timer every 2 s (timeout 5 s);
 * once it halts or is SIGKILLed, the timer runs out and the exchange cancels the market's orders.
 */
jest.setTimeout(60_000);

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
    strategies: { dir: path.join(ROOT, 'test/integration/app/strategies'), enabled: [{ name: 'churn' }] },
    killSwitch: { enabled: true, markets: ['BTC_USDT'], timeoutSeconds: 5, refreshSeconds: 2 },
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

test('armed and refreshed while healthy; halting stops the refresh and the exchange cancels; SIGKILL does the same', async () => {
  daemon = new DaemonProcess(['run', '--config', cfg.file], ENV);
  await daemon.waitForLine((l: LogLine) => l.msg === 'tradebot started', 20_000, 'start');
  await until('the kill-switch timer', () => timer() !== undefined, 10_000);

  // Healthy: the timer keeps moving forward, past the 5 s an un-refreshed timer would last.
  const first = restingOrder();
  const armedUntil = timer()!.cancellationTime;
  await until('two refreshes', () => (timer()?.cancellationTime ?? 0) >= armedUntil + 4, 15_000);
  expect(isOpen(first)).toBe(true);

  // Halt (operator): refreshing stops, the exchange's timer runs out and cancels the order.
  expect(runCli(['pause', '--config', cfg.file], ENV).code).toBe(0);
  await daemon.waitForLine((l) => l.msg.startsWith('kill-switch NOT refreshed'), 10_000, 'refresh stop');
  await until('the kill-switch cancel after halt', () => !isOpen(first), 15_000);
  expect(sim.engine.orderHistory(API_KEY).find((o) => o.id === first)?.status).toBe('CANCELED');

  // Resume: armed again. Then the daemon dies without any chance to clean up.
  expect(runCli(['resume', '--config', cfg.file], ENV).code).toBe(0);
  await daemon.waitForLine((l) => l.msg === 'kill-switch refreshing again', 10_000, 're-arm');
  await until('the re-armed timer', () => timer() !== undefined, 10_000);
  const second = restingOrder();
  daemon.signal('SIGKILL');
  await daemon.exit();
  expect(isOpen(second)).toBe(true);
  await until('the kill-switch cancel after SIGKILL', () => !isOpen(second), 15_000);
});

import { SystemClock } from '../../../src/core/clock';
import { BadResponseError, ExchangeUnavailableError } from '../../../src/domain/errors';
import { RemoteSimClock } from '../../../src/simulator/remote-sim-clock';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { startServer, type LoopbackServer } from '../exchange/loopback-server';

/** The simulator's market clock over HTTP (GET /_sim/clock), as a paper daemon against a running sim-exchange reads it. */
const T0 = 1_700_000_040;
let sim: SimulatedExchange;
let other: LoopbackServer | undefined;
afterEach(async () => {
  await sim?.close();
  await other?.close();
});

test('follows the simulator: its market time (not the wall clock of /public/time), moves and speed changes', async () => {
  sim = await startSimulatedExchange({ apiKey: 'k', apiSecret: 's', markets: [{ name: 'BTC_USDT' }], start: T0, speed: 0 });
  const res = await fetch(`${sim.url}/_sim/clock`);
  expect(await res.json()).toEqual({ marketTimeMs: T0 * 1000, speed: 0, wallTimeMs: expect.any(Number) });

  const clock = await RemoteSimClock.connect(sim.url, new SystemClock());
  try {
    expect(clock.nowMs()).toBe(T0 * 1000);
    expect(clock.speed).toBe(0);
    sim.advanceBy(120);
    await clock.refresh();
    expect(clock.nowMs()).toBe((T0 + 120) * 1000);
    sim.setSpeed(600);
    await clock.refresh();
    expect(clock.speed).toBe(600);
    expect(clock.nowMs()).toBeGreaterThanOrEqual((T0 + 120) * 1000);
  } finally {
    clock.stop();
  }
});

test('a server that is not a simulator, or none at all, is a clear error', async () => {
  sim = await startSimulatedExchange({ apiKey: 'k', apiSecret: 's', markets: [{ name: 'BTC_USDT' }], start: T0, speed: 0 });
  other = await startServer(() => ({ body: { time: 1 } }));
  await expect(RemoteSimClock.connect(other.url, new SystemClock())).rejects.toThrow(BadResponseError);
  await expect(RemoteSimClock.connect(other.url, new SystemClock())).rejects.toThrow(/is this a tradebot sim-exchange/);
  const url = sim.url;
  await sim.close();
  await expect(RemoteSimClock.connect(url, new SystemClock(), { timeoutMs: 1000 })).rejects.toThrow(ExchangeUnavailableError);
});

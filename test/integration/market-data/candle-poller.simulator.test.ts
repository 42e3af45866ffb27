import { MarketClockJobScheduler } from '../../../src/jobs/scheduler';
import { SystemClock } from '../../../src/core/clock';
import type { Candle } from '../../../src/domain/candle';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { CandlePoller, type CandleGap, type CandlePollerEvent, type ClosedCandle } from '../../../src/market-data/candle-poller';
import { loadCsvRows, rowToCandle, type CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { sharedDataFile } from '../../helpers/shared-data';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';

/**
 * A CandlePoller against the embedded simulated exchange over loopback HTTP, replaying real
 * BTC/USDT 1m candles around the exchange's outage of 2021-09-29 07:00-08:59 UTC (120 candles
 * missing in the recorded data).
 */
const CSV = sharedDataFile('btc_usdt-1m-binance-2021-09.csv');
const at = (h: number, m: number): number => Date.UTC(2021, 8, 29, h, m) / 1000;
const GAP_FROM = at(7, 0);
const GAP_TO = at(8, 59);

let slice: CsvCandleRow[];
beforeAll(async () => {
  const rows = await loadCsvRows(process.env['TRADEBOT_BTC_1M_CSV'] ?? CSV);
  slice = rows.filter((r) => r.time >= at(6, 0) && r.time < at(10, 0));
  // The slice really holds the gap: 60 rows before, none inside, 60 after.
  expect(slice.filter((r) => r.time >= GAP_FROM && r.time <= GAP_TO)).toHaveLength(0);
  expect(slice).toHaveLength(120);
});

function httpClient(sim: SimulatedExchange): HttpExchangeClient {
  const wall = new SystemClock();
  return new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', nonceSource: new InMemoryNonceSource({ clock: wall }),
    limiter: new InMemoryRateLimiter(), clock: wall, timeoutMs: 5000,
  });
}

function expectSameCandle(got: Candle, row: CsvCandleRow): void {
  const want = rowToCandle(row);
  expect(got.time).toBe(want.time);
  for (const k of ['open', 'high', 'low', 'close', 'volume'] as const) {
    expect({ time: got.time, k, v: got[k].toString() }).toEqual({ time: got.time, k, v: want[k].toString() });
  }
}

/** Every delivered candle equals the CSV row of its time; all CSV rows closed by `lastOpen` arrived exactly once, in order. */
function checkDelivery(candles: ClosedCandle[], firstOpen: number, lastOpen: number): void {
  const expected = slice.filter((r) => r.time >= firstOpen && r.time <= lastOpen);
  expect(candles.map((c) => c.candle.time)).toEqual(expected.map((r) => r.time));
  candles.forEach((c, i) => expectSameCandle(c.candle, expected[i]!));
}

describe('CandlePoller over HTTP against the simulated exchange (real data with a gap)', () => {
  let sim: SimulatedExchange;
  afterEach(async () => { await sim?.close(); });

  test('driven market clock: every closed candle exactly once, in order; the outage is one gap', async () => {
    sim = await startSimulatedExchange({ markets: [{ name: 'BTC_USDT', rows: slice }], speed: 0, start: at(6, 0) });
    const events: CandlePollerEvent[] = [];
    const poller = new CandlePoller({
      market: 'BTC_USDT', interval: '1m', client: httpClient(sim), clock: sim.clock, onEvent: (e) => { events.push(e); },
    });
    sim.advanceTo(at(6, 20) + 1.5);
    await poller.warmUp(20); // 06:00..06:19
    // Irregular steps (1..7 minutes, each +1.5 s after a close) across the outage.
    const steps = [1, 3, 1, 7, 2, 1, 5, 4, 1, 6];
    let now = at(6, 20);
    for (let i = 0; now < at(10, 0); i++) {
      now = Math.min(at(10, 0), now + steps[i % steps.length]! * 60);
      sim.advanceTo(now + 1.5);
      await poller.poll();
      if (i % 4 === 0) await poller.poll(); // the same answer again: nothing new
    }
    const candles = events.filter((e): e is ClosedCandle => e.type === 'candle');
    checkDelivery(candles, at(6, 0), at(9, 59));
    expect(events.filter((e): e is CandleGap => e.type === 'gap')).toEqual([
      expect.objectContaining({ from: GAP_FROM, to: GAP_TO, missing: 120 }),
    ]);
    expect(events.filter((e) => e.type === 'revision')).toEqual([]);
    // During the outage the poller said so, and the last candle before it was fresh when it came.
    expect(events.some((e) => e.type === 'stale' && e.newestTime === at(6, 59))).toBe(true);
    expect(candles.at(-1)).toMatchObject({ stale: false, source: 'live' });
    // The gap event comes right before the first candle after the outage.
    const gapIndex = events.findIndex((e) => e.type === 'gap');
    expect(events.slice(gapIndex + 1).find((e) => e.type === 'candle')).toMatchObject({ candle: { time: GAP_TO + 60 } });
  });

  test('scheduler on the accelerated simulator clock drives the poller across the outage', async () => {
    sim = await startSimulatedExchange({ markets: [{ name: 'BTC_USDT', rows: slice }], speed: 0, start: at(6, 55) });
    const clock = sim.clock;
    const events: CandlePollerEvent[] = [];
    const poller = new CandlePoller({
      market: 'BTC_USDT', interval: '1m', client: httpClient(sim), clock, onEvent: (e) => { events.push(e); },
    });
    await poller.warmUp(5); // 06:50..06:54
    const log = { warn: () => undefined, error: (obj: object, msg: string) => { throw new Error(`${msg} ${JSON.stringify(obj)}`); } };
    const scheduler = new MarketClockJobScheduler({ clock, log });
    scheduler.add({ name: 'klines:BTC_USDT:1m', schedule: { kind: 'candle-close', interval: '1m' }, run: async (ctx) => { await poller.poll(ctx.signal); } });
    scheduler.start();
    sim.setSpeed(3000); // 50 market minutes per real second: 06:55 -> 09:05 in about 2.6 s
    const target = at(9, 4);
    // Bounded wait for the poller (not a timed assertion: the checks below hold however long it took).
    for (let i = 0; i < 480 && (poller.status().lastCandleTime ?? 0) < target; i++) await new Promise((r) => setTimeout(r, 25));
    sim.setSpeed(0);
    await scheduler.stop();
    const candles = events.filter((e): e is ClosedCandle => e.type === 'candle');
    const last = poller.status().lastCandleTime!;
    expect(last).toBeGreaterThanOrEqual(target);
    checkDelivery(candles, at(6, 50), last);
    expect(events.filter((e) => e.type === 'gap')).toEqual([expect.objectContaining({ from: GAP_FROM, to: GAP_TO })]);
    expect(scheduler.stats()['klines:BTC_USDT:1m']!.errors).toBe(0);
  }, 20_000);
});

import { ManualClock } from '../../../src/core/clock';
import type { Interval } from '../../../src/domain/candle';
import { CandlePoller, type CandlePollerEvent, type ClosedCandle } from '../../../src/market-data/candle-poller';
import { candle, KlineStub } from './kline-stub';

const T0 = Date.UTC(2021, 8, 29, 6, 0, 0) / 1000; // 2021-09-29 06:00 UTC
const M = 60;

function setup(interval: Interval = '1m', opts: { pageSize?: number; staleAfterMs?: number } = {}) {
  const clock = new ManualClock();
  const stub = new KlineStub(clock, interval);
  const events: CandlePollerEvent[] = [];
  const poller = new CandlePoller({ market: 'BTC_USDT', interval, client: stub, clock, onEvent: (e) => { events.push(e); }, ...opts });
  const candles = () => events.filter((e): e is ClosedCandle => e.type === 'candle');
  const times = () => candles().map((e) => e.candle.time);
  const of = <T extends CandlePollerEvent['type']>(t: T) => events.filter((e) => e.type === t) as Extract<CandlePollerEvent, { type: T }>[];
  return { clock, stub, events, poller, candles, times, of };
}

/** Every request the poller made respected the API's rules. */
function expectValidWindows(stub: KlineStub): void {
  for (const r of stub.requests) {
    expect(r.limit).toBeGreaterThanOrEqual(1);
    expect(r.limit).toBeLessThanOrEqual(1440);
    expect(r.start).toBeDefined();
    expect(r.end).toBeDefined();
    expect(r.start!).toBeLessThanOrEqual(r.end!);
  }
}

function range(from: number, to: number, step = M): number[] {
  const out: number[] = [];
  for (let t = from; t <= to; t += step) out.push(t);
  return out;
}

describe('CandlePoller: closed candles', () => {
  test('drops the still-open last row and starts at the newest closed candle without warm-up', async () => {
    const { clock, stub, poller, times, candles } = setup();
    stub.fill(T0 - 100 * M, T0 + 10 * M);
    clock.setMs((T0 + 5 * M + 1.5) * 1000); // 06:05:01.5: the 06:05 candle is open
    const s = await poller.poll();
    expect(times()).toEqual([T0 + 4 * M]);
    expect(candles()[0]).toMatchObject({ stale: false, source: 'live', market: 'BTC_USDT', interval: '1m' });
    expect(s).toMatchObject({ delivered: 1, gaps: 0, revisions: 0, stale: false });
  });

  test('drops a row that the exchange returns although it is still open (its close is after now)', async () => {
    const clock = new ManualClock(T0 * 1000 + 30_000); // 06:00:30: the 06:00 candle is open
    const rows = [candle(T0 - M), candle(T0)]; // answers ignore the window, like a careless server
    const got: number[] = [];
    const p = new CandlePoller({
      market: 'BTC_USDT', interval: '1m', clock, client: { fetchCandles: async () => rows },
      onEvent: (e) => { if (e.type === 'candle') got.push(e.candle.time); },
    });
    await p.poll();
    expect(got).toEqual([T0 - M]);
  });

  test('successive polls deliver each closed candle exactly once, in order; re-delivery is ignored', async () => {
    const { clock, stub, poller, times, events } = setup();
    stub.fill(T0 - 10 * M, T0 + 60 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    for (let i = 1; i <= 30; i++) {
      clock.setMs((T0 + i * M) * 1000 + 1500);
      await poller.poll();
      if (i % 5 === 0) await poller.poll(); // same minute again: identical rows come back
    }
    expect(times()).toEqual(range(T0 - M, T0 + 29 * M));
    expect(events.filter((e) => e.type !== 'candle')).toEqual([]);
    expectValidWindows(stub);
  });

  test('concurrent polls are serialized and never duplicate', async () => {
    const { clock, stub, poller, times } = setup();
    stub.fill(T0 - 10 * M, T0 + 60 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    clock.setMs((T0 + 5 * M) * 1000 + 1500);
    await Promise.all([poller.poll(), poller.poll(), poller.poll()]);
    expect(times()).toEqual(range(T0 - M, T0 + 4 * M));
  });

  test('a changed value for a delivered time is a revision, not a second delivery', async () => {
    const { clock, stub, poller, times, of } = setup();
    stub.fill(T0 - 10 * M, T0 + 60 * M);
    clock.setMs((T0 + 1 * M) * 1000 + 1500);
    await poller.poll();
    stub.set(candle(T0, 100, 42)); // the exchange's aggregate of 06:00 grew after we read it
    clock.setMs((T0 + 2 * M) * 1000 + 1500);
    const s = await poller.poll();
    expect(s.revisions).toBe(1);
    const [rev] = of('revision');
    expect(rev).toMatchObject({ time: T0 });
    expect(rev!.previous.volume.toString()).toBe('1');
    expect(rev!.current.volume.toString()).toBe('42');
    expect(times()).toEqual([T0, T0 + M]);
    await poller.poll(); // the revised value again: identical now, ignored
    expect(of('revision')).toHaveLength(1);
  });
});

describe('CandlePoller: holes, back-fill and true gaps', () => {
  test('a long absence is caught up by paging (limit <= 1440, start <= end), in order', async () => {
    const { clock, stub, poller, times, candles } = setup();
    stub.fill(T0 - 10 * M, T0 + 4000 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    clock.setMs((T0 + 3500 * M) * 1000 + 1500);
    const s = await poller.poll();
    expect(times()).toEqual(range(T0 - M, T0 + 3499 * M));
    expect(s.requests).toBe(3); // 3501 rows incl. the overlap: 1440 + 1440 + 621
    expectValidWindows(stub);
    // Caught-up candles closed long ago: flagged stale so nobody trades on them; the newest is fresh.
    expect(candles().at(-1)!.stale).toBe(false);
    expect(candles().at(-2)!.stale).toBe(true);
  });

  test('a hole in an answer is back-filled before newer candles are delivered', async () => {
    const { clock, stub, poller, candles, of } = setup();
    stub.fill(T0 - 10 * M, T0 + 60 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    stub.hideOnce = new Set([T0 + 2 * M, T0 + 3 * M]); // missing from the first answer only
    clock.setMs((T0 + 6 * M) * 1000 + 1500);
    await poller.poll();
    expect(candles().map((c) => [c.candle.time - T0, c.source])).toEqual([
      [-M, 'live'], [0, 'live'], [M, 'live'], [2 * M, 'back-fill'], [3 * M, 'back-fill'], [4 * M, 'live'], [5 * M, 'live'],
    ]);
    expect(of('gap')).toEqual([]);
    const backFill = stub.requests.at(-1)!;
    expect(backFill).toMatchObject({ start: T0 + 2 * M, limit: 2 });
    expectValidWindows(stub);
  });

  test('a true gap (exchange outage, 120 candles) is reported once with from/to and never re-fetched', async () => {
    const { clock, stub, poller, times, of } = setup();
    stub.fill(T0 - 10 * M, T0 + 300 * M);
    stub.remove(T0 + 60 * M, T0 + 179 * M); // 07:00..08:59 as in the real data
    clock.setMs((T0 + 30 * M) * 1000 + 1500);
    await poller.poll();
    let polls = 0;
    for (let t = T0 + 31 * M; t <= T0 + 200 * M; t += 10 * M) {
      clock.setMs(t * 1000 + 1500);
      await poller.poll();
      polls += 1;
    }
    const gaps = of('gap');
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ from: T0 + 60 * M, to: T0 + 179 * M, missing: 120 });
    const expected = range(T0 + 29 * M, T0 + 190 * M).filter((t) => t < T0 + 60 * M || t > T0 + 179 * M);
    expect(times()).toEqual(expected);
    // One request per poll, plus one back-fill attempt for the hole and the polls during the outage.
    expect(stub.requests.length).toBeLessThanOrEqual(polls + 2);
    expectValidWindows(stub);
  });

  test('during an outage at the tail the poller reports stale, then reports the gap once when data resumes', async () => {
    const { clock, stub, poller, of, events } = setup();
    stub.fill(T0 - 10 * M, T0 + 10 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    clock.setMs((T0 + 11 * M) * 1000 + 1500);
    await poller.poll(); // delivers up to 06:10, the last candle before the outage
    clock.setMs((T0 + 13 * M) * 1000 + 1500); // 06:11, 06:12 do not exist on the exchange
    expect((await poller.poll()).stale).toBe(true);
    expect(poller.status().stale).toBe(true);
    expect(of('stale').at(-1)).toMatchObject({ newestTime: T0 + 10 * M });
    stub.fill(T0 + 13 * M, T0 + 20 * M);
    clock.setMs((T0 + 15 * M) * 1000 + 1500);
    const s = await poller.poll();
    expect(s.stale).toBe(false);
    expect(of('gap')).toEqual([expect.objectContaining({ from: T0 + 11 * M, to: T0 + 12 * M, missing: 2 })]);
    const lastTypes = events.slice(-3).map((e) => e.type);
    expect(lastTypes).toEqual(['gap', 'candle', 'candle']);
  });
});

describe('CandlePoller: warm-up and staleness', () => {
  test('warmUp(N > 1440) pages and delivers the last N closed candles, then polling continues', async () => {
    const { clock, stub, poller, times, candles } = setup();
    stub.fill(T0 - 5000 * M, T0 + 10 * M);
    clock.setMs(T0 * 1000 + 1500);
    const s = await poller.warmUp(3000);
    expect(times()).toEqual(range(T0 - 3000 * M, T0 - M));
    expect(candles().every((c) => c.source === 'warm-up')).toBe(true);
    expect(s.requests).toBe(3);
    expectValidWindows(stub);
    clock.setMs((T0 + 2 * M) * 1000 + 1500);
    await poller.poll();
    expect(times().slice(-3)).toEqual([T0 - M, T0, T0 + M]);
    expect(new Set(times()).size).toBe(times().length);
  });

  test('a lagging exchange makes the poller stale; late candles are delivered with stale: true', async () => {
    const { clock, stub, poller, candles, of } = setup();
    stub.fill(T0 - 10 * M, T0 + 10 * M);
    clock.setMs(T0 * 1000 + 1500);
    await poller.poll();
    stub.lagFrom = T0 + M; // the exchange stops at 06:00
    clock.setMs((T0 + 3 * M) * 1000 + 1500);
    const s = await poller.poll();
    expect(s).toMatchObject({ delivered: 1, stale: true }); // 06:00 arrives; 06:01, 06:02 do not
    expect(of('stale')).toHaveLength(1);
    expect(of('stale')[0]!.ageMs).toBeGreaterThan(60_000);
    stub.lagFrom = undefined;
    const s2 = await poller.poll();
    expect(s2.stale).toBe(false);
    expect(candles().slice(-2).map((c) => [c.candle.time - T0, c.stale])).toEqual([[M, true], [2 * M, false]]);
  });

  test('staleAfterMs is configurable', async () => {
    const { clock, stub, poller } = setup('1m', { staleAfterMs: 5_000 });
    stub.fill(T0 - 10 * M, T0 + 10 * M);
    clock.setMs(T0 * 1000 + 6_000);
    expect((await poller.poll()).stale).toBe(true);
  });

  test('1w and 1M intervals: warm-up over calendar boundaries', async () => {
    for (const [interval, opens] of [
      ['1M', [Date.UTC(2021, 10, 1), Date.UTC(2021, 11, 1), Date.UTC(2022, 0, 1), Date.UTC(2022, 1, 1)]],
      ['1w', [Date.UTC(2022, 0, 17), Date.UTC(2022, 0, 24), Date.UTC(2022, 0, 31)]], // Mondays
    ] as const) {
      const { clock, stub, poller, times } = setup(interval);
      stub.fill(Date.UTC(2021, 0, 4) / 1000, Date.UTC(2022, 5, 6) / 1000);
      // 1M: 2022-03-01 00:00:01.5 (February just closed); 1w: Monday 2022-02-07 00:00:01.5.
      clock.setMs(interval === '1M' ? Date.UTC(2022, 2, 1, 0, 0, 1, 500) : Date.UTC(2022, 1, 7, 0, 0, 1, 500));
      await poller.warmUp(opens.length);
      expect(times()).toEqual(opens.map((ms) => ms / 1000));
      expectValidWindows(stub);
    }
  });

  test('pageSize bounds every request and must be within 1..1440', async () => {
    const { clock, stub, poller } = setup('1h', { pageSize: 100 });
    stub.fill(T0 - 1000 * 3600, T0);
    clock.setMs(T0 * 1000 + 1500);
    await poller.warmUp(250);
    expect(stub.requests.map((r) => r.limit)).toEqual([100, 100, 50]);
    expect(() => setup('1m', { pageSize: 1441 })).toThrow(/pageSize/);
  });
});

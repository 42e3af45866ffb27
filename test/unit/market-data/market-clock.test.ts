import { ManualClock } from '../../../src/core/clock';
import { AcceleratedMarketClock, DrivenMarketClock, ScaledMarketClock } from '../../../src/market-data/market-clock';

describe('market clocks', () => {
  test('DrivenMarketClock wakes sleepers in target order when time passes them', async () => {
    const clock = new DrivenMarketClock(1000);
    const woke: number[] = [];
    const a = clock.sleepUntil(3000).then(() => woke.push(3000));
    const b = clock.sleepUntil(2000).then(() => woke.push(2000));
    const c = clock.sleepUntil(9000).then(() => woke.push(9000));
    expect(clock.pendingSleepers()).toBe(3);
    clock.setMs(5000);
    await Promise.all([a, b]);
    expect(woke).toEqual([2000, 3000]);
    expect(clock.pendingSleepers()).toBe(1);
    clock.advanceMs(4000);
    await c;
    expect(woke).toEqual([2000, 3000, 9000]);
  });

  test('DrivenMarketClock: a past target resolves at once; abort resolves early and drops the sleeper', async () => {
    const clock = new DrivenMarketClock(1000);
    await clock.sleepUntil(500);
    const ac = new AbortController();
    const p = clock.sleepUntil(10_000, ac.signal);
    ac.abort();
    await p;
    expect(clock.pendingSleepers()).toBe(0);
  });

  test('AcceleratedMarketClock runs speed x faster than its real clock and rejects a bad speed', () => {
    const real = new ManualClock(0);
    const clock = new AcceleratedMarketClock({ startMs: 1_632_898_800_000, speed: 60, realClock: real });
    real.advanceMs(1000);
    expect(clock.nowMs()).toBe(1_632_898_800_000 + 60_000);
    expect(() => new AcceleratedMarketClock({ startMs: 0, speed: 0 })).toThrow(/speed/);
  });

  test('an accelerated clock sleeps the scaled real time (real timers, short)', async () => {
    const clock = new AcceleratedMarketClock({ startMs: 0, speed: 1000 });
    await clock.sleepUntil(200); // 200 market ms = 0.2 real ms
    expect(clock.nowMs()).toBeGreaterThanOrEqual(200);
    const ac = new AbortController();
    const p = clock.sleepUntil(10_000_000_000, ac.signal);
    ac.abort();
    await p; // resolves despite the far target
  });

  test('ScaledMarketClock follows a clock that carries its own (changeable, possibly zero) speed', async () => {
    const base = Object.assign(new ManualClock(42), { speed: 0 });
    const clock = new ScaledMarketClock(base);
    expect(clock.nowMs()).toBe(42);
    expect(clock.speed).toBe(0);
    const woke = clock.sleepUntil(100);
    base.setMs(100); // a paused clock moved by hand: the sleeper sees it on its next look
    await woke;
    base.speed = 60;
    expect(clock.speed).toBe(60);
  });
});

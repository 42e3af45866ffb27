import { ManualClock, SystemClock } from '../../../src/core/clock';

describe('clocks', () => {
  test('a driven ManualClock wakes sleepers in target order when time passes them', async () => {
    const clock = new ManualClock(1000);
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

  test('a driven ManualClock: a past target resolves at once; abort resolves early and drops the sleeper', async () => {
    const clock = new ManualClock(1000);
    await clock.sleepUntil(500);
    const ac = new AbortController();
    const p = clock.sleepUntil(10_000, ac.signal);
    ac.abort();
    await p;
    expect(clock.pendingSleepers()).toBe(0);
  });

  test('a running ManualClock moves speed x faster than its real clock; advanceTo never goes back', () => {
    const real = new ManualClock(0);
    const clock = new ManualClock(1_632_898_800_000, { speed: 60, real });
    real.advanceMs(1000);
    expect(clock.nowMs()).toBe(1_632_898_800_000 + 60_000);
    clock.advanceTo(1_632_898_800);
    expect(clock.nowMs()).toBe(1_632_898_800_000 + 60_000);
    clock.advanceBy(60);
    expect(clock.nowMs()).toBe(1_632_898_800_000 + 120_000);
    clock.setSpeed(0);
    real.advanceMs(1000);
    expect(clock.nowMs()).toBe(1_632_898_800_000 + 120_000);
    expect(clock.version).toBe(3);
  });

  test('a running clock sleeps the scaled real time (real timers, short), and a paused one wakes when moved or sped up', async () => {
    const clock = new ManualClock(0, { speed: 1000 });
    await clock.sleepUntil(200); // 200 market ms = 0.2 real ms
    expect(clock.nowMs()).toBeGreaterThanOrEqual(200);
    const ac = new AbortController();
    const p = clock.sleepUntil(10_000_000_000, ac.signal);
    ac.abort();
    await p; // resolves despite the far target

    clock.setSpeed(0);
    const moved = clock.sleepUntil(clock.nowMs() + 1000);
    clock.advanceMs(1000);
    await moved;
    const sped = clock.sleepUntil(clock.nowMs() + 100);
    clock.setSpeed(1000);
    await sped;
  });

  test('the wall clock runs at speed 1', async () => {
    const clock = new SystemClock();
    expect(clock.speed).toBe(1);
    const target = clock.nowMs() + 5;
    await clock.sleepUntil(target);
    expect(clock.nowMs()).toBeGreaterThanOrEqual(target);
  });
});

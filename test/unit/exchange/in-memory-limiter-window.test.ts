import { ManualClock } from '../../../src/core/clock';
import { LIMITS, type LimitTable } from '../../../src/limiter/limits';
import { InMemoryRateLimiter, type LimiterTimer } from '../../../src/limiter/in-memory-limiter';

/**
 * The exchange counts requests per window of W ms on its own clock. A bucket of capacity C refilled
 * at C per W and started full lets C through at once and C more before the window ends: 2C. Here
 * greedy callers (always more waiting than the limiter can serve) drain the limiter on a ManualClock
 * advanced 1 ms at a time, and every grant time is recorded; no closed window [t, t + W] may hold
 * more than C grants.
 */
const C = 50;
const W = 1000;
const table: LimitTable = { ...LIMITS, orders: { capacity: C, windowMs: W } };
/** The test drives the limiter with poke(); the limiter's own wake-ups are not needed. */
const noTimer: LimiterTimer = { set: () => 0, clear: () => undefined };
const flush = () => new Promise((r) => setImmediate(r));

/** The most grants in any closed window [t, t + W] that starts at a grant (the worst windows do). */
function worstWindow(times: readonly number[]): number {
  let worst = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && times[end]! <= times[start]! + W) end++;
    worst = Math.max(worst, end - start);
  }
  return worst;
}

async function grantTimes(options: { safetyMargin?: number; burstFraction?: number }, durationMs: number, callers: number): Promise<number[]> {
  const clock = new ManualClock(5_000_000);
  const limiter = new InMemoryRateLimiter({ limits: table, clock, timer: noTimer, ...options });
  const times: number[] = [];
  // Half high priority, half normal: both queues draw from the one bucket.
  const waits = Array.from({ length: callers }, (_, i) =>
    limiter.acquire('orders', { priority: i % 2 === 0 ? 'normal' : 'high' }).then(() => times.push(clock.nowMs())),
  );
  await flush();
  for (let t = 0; t < durationMs; t++) {
    clock.advanceMs(1);
    limiter.poke();
    await flush();
  }
  expect(times.length).toBeLessThan(callers); // callers were still waiting at the end: the limiter was the bottleneck
  void Promise.allSettled(waits);
  return times;
}

describe('InMemoryRateLimiter: every sliding window stays within the limit', () => {
  test.each([
    ['defaults (margin 0.97, burst 2%)', {}],
    ['margin 1, burst half of the budget', { safetyMargin: 1, burstFraction: 0.5 }],
    ['margin 0.9, burst 10%', { safetyMargin: 0.9, burstFraction: 0.1 }],
  ])('%s', async (_name, options) => {
    const times = await grantTimes(options, 4 * W, 400);
    expect(times.length).toBeGreaterThan(3 * C * 0.5); // it did keep granting
    expect(worstWindow(times)).toBeLessThanOrEqual(C);
  });

  test('with margin 1 the budget is used: the worst window holds exactly C', async () => {
    const times = await grantTimes({ safetyMargin: 1, burstFraction: 0.5 }, 4 * W, 400);
    expect(worstWindow(times)).toBe(C);
  });
});

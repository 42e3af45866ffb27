import { ManualClock } from '../../../src/core/clock';
import { backoffDelayMs, MAX_RETRY_AFTER_MS, parseRetryAfter, retryAfterSeconds, retryDelayMs } from '../../../src/notify/backoff';
import { BoundedQueue } from '../../../src/notify/bounded-queue';
import { TokenBucket } from '../../../src/notify/token-bucket';

describe('token bucket (maxPerMinute per channel)', () => {
  test('a burst of perMinute, then one every 60 s / perMinute', () => {
    const clock = new ManualClock(1_000_000);
    const bucket = new TokenBucket(3, clock);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.msUntilToken()).toBe(20_000);
    clock.advanceMs(19_999);
    expect(bucket.take()).toBe(false);
    clock.advanceMs(1);
    expect(bucket.take()).toBe(true);
    clock.advanceMs(600_000);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });

  test('force() goes into debt (urgent messages), at most one minute of it', () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket(2, clock);
    for (let i = 0; i < 10; i++) bucket.force();
    expect(bucket.msUntilToken()).toBe(90_000); // from -2 back to 1 token at 2 per minute
  });

  test('a clock stepping back adds nothing', () => {
    const clock = new ManualClock(100_000);
    const bucket = new TokenBucket(1, clock);
    expect(bucket.take()).toBe(true);
    clock.setMs(0);
    expect(bucket.take()).toBe(false);
  });
});

describe('backoff', () => {
  const policy = { baseDelayMs: 1000, maxDelayMs: 8000 };

  test('doubles from the base to the cap, jittered within [ceiling / 2, ceiling]', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelayMs(3, policy);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });

  test('a receiver\'s own wait wins, capped', () => {
    expect(retryDelayMs(1, 3000, policy, () => 0)).toBe(3000);
    expect(retryDelayMs(1, 10 * MAX_RETRY_AFTER_MS, policy)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(2, undefined, policy, () => 1)).toBe(2000);
  });

  test('Retry-After as seconds or an HTTP date; JSON retry_after in seconds', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(retryAfterSeconds(2)).toBe(2000);
    expect(retryAfterSeconds(0.25)).toBe(250);
    expect(retryAfterSeconds('2')).toBeUndefined();
    expect(retryAfterSeconds(-1)).toBeUndefined();
  });
});

describe('bounded queue', () => {
  test('full: drops the oldest item that need not be kept, and says which', () => {
    const q = new BoundedQueue<string>(3, (s) => s.startsWith('HALT'));
    expect(q.push('HALT-1')).toBeUndefined();
    q.push('fill-1');
    q.push('fill-2');
    expect(q.push('fill-3')).toBe('fill-1');
    expect(q.push('HALT-2')).toBe('fill-2');
    expect(q.drain()).toEqual(['HALT-1', 'fill-3', 'HALT-2']);
  });

  test('full of kept items: a kept one drops the oldest, any other is itself dropped', () => {
    const q = new BoundedQueue<string>(2, (s) => s.startsWith('HALT'));
    q.push('HALT-a');
    q.push('HALT-b');
    expect(q.push('fill')).toBe('fill');
    expect(q.push('HALT-c')).toBe('HALT-a');
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['HALT-b', 'HALT-c', undefined]);
  });

  test('order is kept across both lines, and over many pushes (the lines compact)', () => {
    const q = new BoundedQueue<number>(5000, (n) => n % 7 === 0);
    const dropped: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const d = q.push(i);
      if (d !== undefined) dropped.push(d);
      if (i % 3 === 0) q.shift();
    }
    const left = q.drain();
    expect(left.length).toBe(5000);
    expect([...left].sort((a, b) => a - b)).toEqual(left);
    expect(dropped.every((d) => d % 7 !== 0)).toBe(true);
    expect(q.length).toBe(0);
  });
});

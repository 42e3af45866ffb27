import { ManualClock } from '../../../src/core/clock';
import { measureClockOffset, syncClockOffset } from '../../../src/exchange/clock-offset';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { bucketParams } from '../../../src/limiter/bucket-params';
import { LIMITS, type LimitTable } from '../../../src/limiter/limits';
import { InMemoryRateLimiter, type LimiterTimer } from '../../../src/limiter/in-memory-limiter';

/** A timer the test fires by hand, so nothing depends on wall-clock speed. */
class ManualTimer implements LimiterTimer {
  pending = new Map<number, () => void>();
  private next = 0;
  set(fn: () => void): unknown {
    this.pending.set(++this.next, fn);
    return this.next;
  }
  clear(h: unknown): void {
    this.pending.delete(h as number);
  }
  fire(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    fns.forEach((f) => f());
  }
}

const flush = () => new Promise((r) => setImmediate(r));
/**
 * A limit of 4 per 1000 ms with no margin and half of it as burst: the bucket holds 2 and refills
 * one token per 500 ms, so any 1000 ms window sees at most 2 + 2 = 4 grants. (These tests used to
 * say capacity 2 for the same bucket, which let 4 through per window: twice the limit.)
 */
const table: LimitTable = { ...LIMITS, orders: { capacity: 4, windowMs: 1000 } };
const OPTIONS = { safetyMargin: 1, burstFraction: 0.5 } as const;

function setup() {
  const clock = new ManualClock(1_000_000);
  const timer = new ManualTimer();
  return { clock, timer, limiter: new InMemoryRateLimiter({ limits: table, clock, timer, ...OPTIONS }) };
}

describe('InMemoryRateLimiter', () => {
  test('starts with its burst, then callers wait in FIFO order as tokens refill', async () => {
    const { clock, timer, limiter } = setup();
    await limiter.acquire('orders');
    await limiter.acquire('orders');
    expect(await limiter.available('orders')).toBe(0);
    const served: string[] = [];
    const waits = ['a', 'b', 'c'].map((n) => limiter.acquire('orders').then(() => served.push(n)));
    await flush();
    expect(served).toEqual([]);
    clock.advanceMs(500); // one token
    timer.fire();
    await flush();
    expect(served).toEqual(['a']);
    clock.advanceMs(1000); // two more
    timer.fire();
    await Promise.all(waits);
    expect(served).toEqual(['a', 'b', 'c']);
  });

  test('priority high goes ahead of waiting normal callers', async () => {
    const { clock, timer, limiter } = setup();
    await limiter.acquire('orders');
    await limiter.acquire('orders');
    const served: string[] = [];
    const n1 = limiter.acquire('orders').then(() => served.push('normal-1'));
    const n2 = limiter.acquire('orders').then(() => served.push('normal-2'));
    const h = limiter.acquire('orders', { priority: 'high' }).then(() => served.push('cancel'));
    clock.advanceMs(1000); // two tokens: the cancel and the first normal caller
    timer.fire();
    await flush();
    expect(served).toEqual(['cancel', 'normal-1']);
    clock.advanceMs(500);
    timer.fire();
    await Promise.all([n1, n2, h]);
    expect(served).toEqual(['cancel', 'normal-1', 'normal-2']);
  });

  test('a normal caller never overtakes queued ones even when a token is free', async () => {
    const { clock, timer, limiter } = setup();
    await limiter.acquire('orders');
    await limiter.acquire('orders');
    const served: string[] = [];
    const first = limiter.acquire('orders').then(() => served.push('first'));
    clock.advanceMs(500); // a token is there, but 'first' is queued ahead
    const second = limiter.acquire('orders').then(() => served.push('second'));
    timer.fire();
    clock.advanceMs(500);
    timer.fire();
    await Promise.all([first, second]);
    expect(served).toEqual(['first', 'second']);
  });

  test('abort removes a waiter with the signal reason; limits are independent', async () => {
    const { limiter } = setup();
    await limiter.acquire('orders');
    await limiter.acquire('orders');
    const ac = new AbortController();
    const waiting = limiter.acquire('orders', { signal: ac.signal });
    ac.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    await expect(limiter.acquire('orders', { signal: ac.signal })).rejects.toThrow('shutting down');
    await expect(limiter.acquire('kline')).resolves.toBeUndefined();
    // The kline bucket starts with its burst B (not the whole limit), less the token just taken.
    expect(await limiter.available('kline')).toBe(bucketParams(LIMITS.kline, OPTIONS.safetyMargin, OPTIONS.burstFraction).capacity - 1);
  });
});

describe('InMemoryNonceSource', () => {
  test('max(now + offset, last + 1) per key', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const nonces = new InMemoryNonceSource({ clock });
    expect(await nonces.nextNonce('k')).toBe(1_700_000_000_000);
    expect(await nonces.nextNonce('k')).toBe(1_700_000_000_001);
    expect(await nonces.nextNonce('other')).toBe(1_700_000_000_000);
    nonces.setClockOffsetMs(5000);
    expect(await nonces.nextNonce('k')).toBe(1_700_000_005_000);
    nonces.setClockOffsetMs(3000); // the clock moved back: still strictly increasing
    expect(await nonces.nextNonce('k')).toBe(1_700_000_005_001);
  });
});

describe('clock offset', () => {
  test('server time is matched to the midpoint of the round trip; shortest round trip wins', async () => {
    const clock = new ManualClock(1000);
    const trips = [400, 100, 300];
    let i = 0;
    const fetchServerTime = async () => {
      const rtt = trips[i++]!;
      clock.advanceMs(rtt / 2);
      const server = clock.nowMs() + 2500; // the server runs 2.5 s ahead
      clock.advanceMs(rtt / 2);
      return server;
    };
    expect(await measureClockOffset(fetchServerTime, clock, 3)).toEqual({ offsetMs: 2500, roundTripMs: 100 });
    i = 0;
    const nonces = new InMemoryNonceSource({ clock });
    await syncClockOffset({ fetchServerTime }, clock, nonces, 1);
    expect(await nonces.nextNonce('k')).toBe(clock.nowMs() + 2500);
  });
});

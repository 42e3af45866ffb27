import { ConfigError } from '../../../src/domain/errors';
import { LIMIT_IDS, LIMITS, type LimitSpec } from '../../../src/limiter/limits';
import { bucketParams } from '../../../src/limiter/redis-token-bucket';

/**
 * A model of take-tokens.lua driven by greedy callers that take a token the moment one is whole.
 * Returns the most grants seen in any closed window of `windowMs`.
 */
function worstWindow(capacity: number, ratePerMs: number, windowMs: number, durationMs: number): number {
  let tokens = capacity;
  const grants: number[] = [];
  for (let t = 0; t <= durationMs; t++) {
    if (t > 0) tokens = Math.min(capacity, tokens + ratePerMs);
    while (tokens >= 1) {
      tokens -= 1;
      grants.push(t);
    }
  }
  let best = 0;
  let hi = 0;
  for (let lo = 0; lo < grants.length; lo++) {
    while (hi < grants.length && (grants[hi] as number) <= (grants[lo] as number) + windowMs) hi++;
    best = Math.max(best, hi - lo);
  }
  return best;
}

describe('token bucket parameters', () => {
  test('the naive bucket (capacity C, refill C per W, started full) lets 2C through in one window', () => {
    const spec: LimitSpec = { capacity: 100, windowMs: 1000 };
    expect(worstWindow(spec.capacity, spec.capacity / spec.windowMs, spec.windowMs, 5000)).toBeGreaterThanOrEqual(2 * spec.capacity - 1);
  });

  test('our parameters keep B + r*W = L <= capacity, so no window can exceed the limit', () => {
    for (const id of LIMIT_IDS) {
      const spec = LIMITS[id];
      const p = bucketParams(spec, 0.97, 0.02);
      expect(p.capacity + p.ratePerMs * p.windowMs).toBeLessThanOrEqual(p.windowBudget + 1e-9);
      expect(p.windowBudget).toBeLessThanOrEqual(spec.capacity);
      expect(p.ttlMs).toBeGreaterThanOrEqual(p.capacity / p.ratePerMs);
    }
    const spec: LimitSpec = { capacity: 100, windowMs: 1000 };
    const p = bucketParams(spec, 0.98, 0.1);
    expect(p).toMatchObject({ windowBudget: 98, capacity: 9 });
    expect(worstWindow(p.capacity, p.ratePerMs, p.windowMs, 5000)).toBeLessThanOrEqual(98);
    // and it still uses the budget: the steady state is (L - B) per window
    expect(worstWindow(p.capacity, p.ratePerMs, p.windowMs, 5000)).toBeGreaterThanOrEqual(97);
  });

  test('bad margins and limits too small are refused', () => {
    expect(() => bucketParams({ capacity: 100, windowMs: 1000 }, 0, 0.1)).toThrow(ConfigError);
    expect(() => bucketParams({ capacity: 100, windowMs: 1000 }, 1.1, 0.1)).toThrow(ConfigError);
    expect(() => bucketParams({ capacity: 100, windowMs: 1000 }, 0.9, 1)).toThrow(ConfigError);
    expect(() => bucketParams({ capacity: 1, windowMs: 1000 }, 1, 0.5)).toThrow(ConfigError);
  });
});

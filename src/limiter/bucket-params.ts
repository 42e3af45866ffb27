import { ConfigError } from '../domain/errors';
import type { LimitSpec } from './limits';

/**
 * Bucket parameters that keep EVERY window of `windowMs` under the limit.
 *
 * The trap: a bucket of capacity C refilling C per W ms, started full, lets C requests through at
 * once and then C more over the next W ms: up to 2C in one W window. In any window [t, t+W] the
 * grants are at most (tokens at t) + (refill during W) <= B + r*W. So we choose
 *
 *   L = floor(capacity * safetyMargin)      the budget we allow ourselves per window
 *   B = max(1, floor(L * burstFraction))    bucket size (burst)
 *   r = (L - B) / W                         refill per ms
 *
 * which gives B + r*W = L <= capacity for every window, sliding or fixed (a fixed window is one of
 * the sliding ones); for the Redis bucket whatever the replicas do, since they all draw from one
 * bucket. The price is the sustained rate: (L - B) per W, e.g. 97% margin and 2% burst -> 95% of
 * the limit. The margin covers what a bucket cannot see: network jitter between the grant and the
 * request's arrival at the exchange (which counts on its own clock), and a bucket reset to full (a
 * Redis restart, a process restart). Used by RedisTokenBucket (refill on Redis TIME) and by
 * InMemoryRateLimiter (refill on the injected Clock).
 */
export interface BucketParams {
  /** Bucket size B, tokens. */
  readonly capacity: number;
  /** Refill, tokens per ms. */
  readonly ratePerMs: number;
  /** L = B + r*W: the most grants any window of windowMs can see. */
  readonly windowBudget: number;
  readonly windowMs: number;
  /** Key expiry: at least the time to refill from empty, so a recreated (full) bucket is no looser. */
  readonly ttlMs: number;
}

export function bucketParams(spec: LimitSpec, safetyMargin: number, burstFraction: number): BucketParams {
  if (!(safetyMargin > 0 && safetyMargin <= 1)) throw new ConfigError(`safetyMargin must be in (0, 1], got ${safetyMargin}`, { path: 'limiter.safetyMargin' });
  if (!(burstFraction > 0 && burstFraction < 1)) throw new ConfigError(`burstFraction must be in (0, 1), got ${burstFraction}`, { path: 'limiter.burstFraction' });
  const budget = Math.floor(spec.capacity * safetyMargin);
  const capacity = Math.max(1, Math.floor(budget * burstFraction));
  if (budget < 2 || capacity >= budget) {
    throw new ConfigError(`limit of ${spec.capacity} per ${spec.windowMs} ms is too small for a margin of ${safetyMargin}`, { path: 'limiter' });
  }
  const ratePerMs = (budget - capacity) / spec.windowMs;
  return { capacity, ratePerMs, windowBudget: budget, windowMs: spec.windowMs, ttlMs: Math.ceil(capacity / ratePerMs) + spec.windowMs };
}

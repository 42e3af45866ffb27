import { performance } from 'node:perf_hooks';
import type { LimitId } from './limits';
import type { RateLimiter } from './rate-limiter';

/** The rate limiter with each wait observed (tradebot_limiter_wait_seconds). */
export class MeteredLimiter implements RateLimiter {
  constructor(private readonly inner: RateLimiter, private readonly onWait: (limit: LimitId, seconds: number) => void) {}

  async acquire(limit: LimitId, options?: { priority?: 'high' | 'normal'; signal?: AbortSignal }): Promise<void> {
    const t0 = performance.now();
    await this.inner.acquire(limit, options);
    try {
      this.onWait(limit, (performance.now() - t0) / 1000);
    } catch {
      // metrics must never fail a request
    }
  }

  available(limit: LimitId): Promise<number> {
    return this.inner.available(limit);
  }
}

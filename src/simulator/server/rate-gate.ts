import type { LimitId, LimitTable } from '../../limiter/limits';

/**
 * The exchange's rate limits, enforced per scope (the limit id of endpoints.ts) and per caller (API
 * key for private endpoints, IP for public ones), over fixed windows of the wall clock. Exceeding
 * answers HTTP 429; requests are rejected, never queued (exchange-api-extra §4).
 */
export class RateGate {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limits: LimitTable | undefined) {}

  /** Counts one request; false when the caller is over the scope's limit in the current window. */
  take(limit: LimitId, caller: string, nowMs: number): boolean {
    const spec = this.limits?.[limit];
    if (spec === undefined) return true;
    const key = `${limit}\u0000${caller}`;
    let window = this.windows.get(key);
    if (window === undefined || nowMs - window.start >= spec.windowMs) {
      if (this.windows.size > 10_000) this.windows.clear(); // bounded: stale callers are forgotten
      window = { start: nowMs, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= spec.capacity;
  }
}

import type { Clock } from '../core/clock';

/**
 * `perMinute` messages a minute for one channel, in this process: a burst of up to `perMinute` at
 * once, then one every 60 s / perMinute. Not shared between replicas: each replica only sends what it
 * claimed, so together they stay near the limit, and a receiver's own 429 is honoured on top.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;
  private readonly perMs: number;

  constructor(private readonly perMinute: number, private readonly clock: Clock) {
    if (!Number.isInteger(perMinute) || perMinute < 1) throw new Error(`perMinute must be a positive integer, got ${perMinute}`);
    this.tokens = perMinute;
    this.updatedAt = clock.nowMs();
    this.perMs = perMinute / 60_000;
  }

  /** Takes a token when there is one. */
  take(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Takes a token even when there is none (an urgent message): the debt makes later messages wait,
   * at most one minute's worth of it, so a storm of urgent ones cannot silence a channel for long.
   */
  force(): void {
    this.refill();
    this.tokens = Math.max(-this.perMinute, this.tokens - 1);
  }

  /** Milliseconds until take() can succeed (0: now). */
  msUntilToken(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.perMs);
  }

  private refill(): void {
    const now = this.clock.nowMs();
    // A clock stepping back (NTP) adds nothing rather than removing tokens.
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.perMinute, this.tokens + elapsed * this.perMs);
    this.updatedAt = now;
  }
}

import { SystemClock, type Clock } from '../core/clock';
import { bucketParams } from './bucket-params';
import { LIMITS, type LimitId, type LimitTable } from './limits';
import type { RateLimiter } from './rate-limiter';

/** Wake-up timer, injectable so tests on a ManualClock can drive the limiter themselves. */
export interface LimiterTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimer: LimiterTimer = {
  // Not unref'd: a caller awaiting a token is real work the process must stay alive for.
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  cleanup(): void;
}

interface Bucket {
  /** Bucket size B (not the limit: see bucketParams). */
  readonly capacity: number;
  /** Tokens per ms. */
  readonly rate: number;
  tokens: number;
  updatedAt: number;
  readonly high: Waiter[];
  readonly normal: Waiter[];
  timer: unknown;
}

export interface InMemoryRateLimiterOptions {
  readonly limits?: LimitTable;
  readonly clock?: Clock;
  readonly timer?: LimiterTimer;
  /** Share of each limit we allow ourselves per window (default 0.97, as the Redis bucket). */
  readonly safetyMargin?: number;
  /** Share of that budget that may go out as one burst (default 0.02, as the Redis bucket). */
  readonly burstFraction?: number;
}

/**
 * A token bucket per limit id, in this process (hummingbot-style: limits are data). Bucket size and
 * refill come from bucketParams, shared with the Redis bucket: burst B plus refill over one window
 * never exceed the limit, so no window of the exchange (sliding or fixed) sees more than `capacity`
 * grants; a bucket of capacity C refilled C per window would let 2C through. Callers that find it
 * empty wait in FIFO order instead of failing; `priority: 'high'` (cancels) waits in a queue that is
 * always served first. A waiter whose AbortSignal fires leaves the queue with the signal's reason.
 * The Redis-shared bucket implements the same RateLimiter port for several replicas.
 */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<LimitId, Bucket>();
  private readonly limits: LimitTable;
  private readonly clock: Clock;
  private readonly timer: LimiterTimer;
  private readonly margin: number;
  private readonly burst: number;

  constructor(options: InMemoryRateLimiterOptions = {}) {
    this.limits = options.limits ?? LIMITS;
    this.clock = options.clock ?? new SystemClock();
    this.timer = options.timer ?? realTimer;
    this.margin = options.safetyMargin ?? 0.97;
    this.burst = options.burstFraction ?? 0.02;
    // Fail at construction on a bad table rather than on the first request (as the Redis bucket).
    for (const id of Object.keys(this.limits) as LimitId[]) bucketParams(this.limits[id], this.margin, this.burst);
  }

  acquire(limit: LimitId, options: { priority?: 'high' | 'normal'; signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const bucket = this.bucket(limit);
    this.refill(bucket);
    const queue = options.priority === 'high' ? bucket.high : bucket.normal;
    // Take at once only when nobody who must go first is waiting (FIFO; high overtakes normal).
    const ahead = options.priority === 'high' ? bucket.high.length : bucket.high.length + bucket.normal.length;
    if (ahead === 0 && bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        reject(signal?.reason);
        this.drain(bucket); // the aborted waiter may have been blocking others
      };
      const waiter: Waiter = {
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.schedule(bucket);
    });
  }

  available(limit: LimitId): Promise<number> {
    const bucket = this.bucket(limit);
    this.refill(bucket);
    return Promise.resolve(Math.floor(bucket.tokens));
  }

  /** Serves waiters whose tokens have arrived; called by the timer (or by tests on a ManualClock). */
  poke(): void {
    for (const bucket of this.buckets.values()) this.drain(bucket);
  }

  private bucket(limit: LimitId): Bucket {
    let b = this.buckets.get(limit);
    if (b === undefined) {
      const p = bucketParams(this.limits[limit], this.margin, this.burst);
      // Starts full: B tokens, which bucketParams already counts against the first window.
      b = { capacity: p.capacity, rate: p.ratePerMs, tokens: p.capacity, updatedAt: this.clock.nowMs(), high: [], normal: [], timer: undefined };
      this.buckets.set(limit, b);
    }
    return b;
  }

  private refill(b: Bucket): void {
    const now = this.clock.nowMs();
    const elapsed = now - b.updatedAt;
    if (elapsed > 0) b.tokens = Math.min(b.capacity, b.tokens + elapsed * b.rate);
    b.updatedAt = now;
  }

  private drain(b: Bucket): void {
    this.refill(b);
    while (b.tokens >= 1) {
      const next = b.high.shift() ?? b.normal.shift();
      if (next === undefined) break;
      b.tokens -= 1;
      next.cleanup();
      next.resolve();
    }
    this.schedule(b);
  }

  private schedule(b: Bucket): void {
    if (b.timer !== undefined) {
      this.timer.clear(b.timer);
      b.timer = undefined;
    }
    if (b.high.length + b.normal.length === 0) return;
    const waitMs = Math.max(1, Math.ceil((1 - b.tokens) / b.rate));
    b.timer = this.timer.set(() => {
      b.timer = undefined;
      this.drain(b);
    }, waitMs);
  }
}

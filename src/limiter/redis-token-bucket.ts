import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import { storeError } from '../store/redis';
import { storeScripts, type StoreScripts } from '../store/scripts';
import { bucketParams, type BucketParams } from './bucket-params';
import { LIMITS, type LimitId, type LimitTable } from './limits';
import type { RateLimiter } from './rate-limiter';

// Shared with the in-process limiter; re-exported for existing importers.
export { bucketParams, type BucketParams } from './bucket-params';

/** Reported for every grant (metrics, tests and benchmarks check windows on the Redis clock). */
export interface GrantEvent {
  readonly limit: LimitId;
  readonly count: number;
  /** Redis TIME of the grant, microseconds. */
  readonly redisTimeUs: number;
}

export interface RedisTokenBucketOptions {
  readonly redis: RedisConnection;
  /** Key builder of the account or IP scope the limits apply to (the exchange counts per IP). */
  readonly keys: StoreKeys;
  readonly limits?: LimitTable;
  /** Share of each limit we allow ourselves (default 0.97). */
  readonly safetyMargin?: number;
  /** Share of the budget that may go out as one burst (default 0.02). */
  readonly burstFraction?: number;
  /** Most tokens one script call asks for on behalf of queued callers (default 64). */
  readonly maxBatch?: number;
  readonly onGrant?: (event: GrantEvent) => void;
}

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  cleanup(): void;
}

interface Queue {
  readonly params: BucketParams;
  readonly key: string;
  readonly high: Waiter[];
  readonly normal: Waiter[];
  pumping: boolean;
}

/**
 * RateLimiter shared by replicas: one bucket per limit id in Redis (take-tokens.lua). Inside this
 * process callers queue FIFO, `priority: 'high'` first; one pump per limit asks Redis for as many
 * tokens as there are waiters (one round trip serves a batch) and sleeps the returned wait when the
 * bucket is dry. If Redis fails, every waiter of that limit is rejected with StoreUnavailableError
 * at once: no token, no request (failing closed keeps the account under the limit).
 */
export class RedisTokenBucket implements RateLimiter {
  private readonly scripts: StoreScripts;
  private readonly queues = new Map<LimitId, Queue>();
  private readonly limits: LimitTable;
  private readonly margin: number;
  private readonly burst: number;
  private readonly maxBatch: number;

  constructor(private readonly opts: RedisTokenBucketOptions) {
    this.scripts = storeScripts(opts.redis);
    this.limits = opts.limits ?? LIMITS;
    this.margin = opts.safetyMargin ?? 0.97;
    this.burst = opts.burstFraction ?? 0.02;
    this.maxBatch = opts.maxBatch ?? 64;
    // Fail at construction on a bad table rather than on the first request.
    for (const id of Object.keys(this.limits) as LimitId[]) bucketParams(this.limits[id], this.margin, this.burst);
  }

  /** The parameters used for `limit` (for documentation, metrics and tests). */
  paramsFor(limit: LimitId): BucketParams {
    return this.queue(limit).params;
  }

  acquire(limit: LimitId, options: { priority?: 'high' | 'normal'; signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const q = this.queue(limit);
    const list = options.priority === 'high' ? q.high : q.normal;
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = { resolve, reject, cleanup: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      list.push(waiter);
      if (!q.pumping) void this.pump(limit, q);
    });
  }

  async available(limit: LimitId): Promise<number> {
    const q = this.queue(limit);
    try {
      const reply = await this.scripts.takeTokens(q.key, q.params.capacity, q.params.ratePerMs, 0, q.params.ttlMs);
      return Number(reply[2]);
    } catch (err) {
      throw storeError(err, 'takeTokens');
    }
  }

  private queue(limit: LimitId): Queue {
    let q = this.queues.get(limit);
    if (!q) {
      const spec = this.limits[limit];
      q = { params: bucketParams(spec, this.margin, this.burst), key: this.opts.keys.bucket(limit), high: [], normal: [], pumping: false };
      this.queues.set(limit, q);
    }
    return q;
  }

  private async pump(limit: LimitId, q: Queue): Promise<void> {
    q.pumping = true;
    try {
      while (q.high.length + q.normal.length > 0) {
        const want = Math.min(this.maxBatch, q.high.length + q.normal.length);
        let reply;
        try {
          reply = await this.scripts.takeTokens(q.key, q.params.capacity, q.params.ratePerMs, want, q.params.ttlMs);
        } catch (err) {
          const error = storeError(err, 'takeTokens');
          for (const w of q.high.splice(0).concat(q.normal.splice(0))) {
            w.cleanup();
            w.reject(error);
          }
          return;
        }
        const granted = Number(reply[0]);
        if (granted > 0) this.opts.onGrant?.({ limit, count: granted, redisTimeUs: Number(reply[3]) });
        // Waiters that aborted during the call left the queue; their tokens are simply not used
        // (spending fewer than granted is always safe).
        for (let i = 0; i < granted; i++) {
          const next = q.high.shift() ?? q.normal.shift();
          if (!next) break;
          next.cleanup();
          next.resolve();
        }
        if (granted < want) await new Promise((r) => setTimeout(r, Math.max(1, Number(reply[1]))));
      }
    } finally {
      q.pumping = false;
    }
  }
}

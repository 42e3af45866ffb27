import type { LimitId } from './limits';

/**
 * A token-bucket rate limiter whose limits are data (limits.ts). Callers wait, in order, until a
 * token of the named limit is free, instead of failing. Implementations: in-process, and the
 * Redis-shared bucket that makes several replicas together respect one limit.
 */
export interface RateLimiter {
  /**
   * Resolves once one token of `limit` has been taken. `priority: 'high'` (cancels) goes ahead of
   * waiting normal callers. Rejects with the abort reason if `signal` aborts while waiting.
   */
  acquire(limit: LimitId, options?: { priority?: 'high' | 'normal'; signal?: AbortSignal }): Promise<void>;
  /** Tokens free right now for `limit` (for metrics). */
  available(limit: LimitId): Promise<number>;
}

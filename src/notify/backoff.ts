/**
 * How long a channel waits before trying a message again: what the receiver asked for (a 429's
 * Retry-After, Telegram's parameters.retry_after) when it said, else exponential backoff with jitter
 * so that replicas and channels hit by one outage do not retry in step.
 */
export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** The longest wait a receiver can impose on its channel (a larger Retry-After is capped to it). */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Wait after the `failures`-th failed attempt (1, 2, ...): the ceiling doubles from baseDelayMs up to
 * maxDelayMs, and the wait is drawn in [ceiling / 2, ceiling] ("equal jitter": spread out, yet never
 * a retry at once).
 */
export function backoffDelayMs(failures: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The receiver's own wait when it gave one (capped at MAX_RETRY_AFTER_MS), else the backoff. */
export function retryDelayMs(failures: number, retryAfterMs: number | undefined, policy: BackoffPolicy, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
  return backoffDelayMs(failures, policy, random);
}

/** An HTTP Retry-After header (delta seconds or an HTTP date) in ms from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - nowMs);
}

/** A `retry_after` in seconds from a JSON answer (Telegram's parameters.retry_after, Discord's retry_after). */
export function retryAfterSeconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.ceil(value * 1000) : undefined;
}

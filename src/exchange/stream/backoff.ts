/**
 * Reconnect delays of the stream supervisor: exponential from `baseMs` to `maxMs` with full jitter
 * (a random point in [base/2, exp]), so a venue restart does not see every client come back in the
 * same millisecond. `random` is injected so the unit test can pin it.
 */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 30_000 };

/** The delay before reconnect attempt `attempt` (0 = the first after a drop). */
export function backoffDelayMs(attempt: number, o: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(attempt, 30));
  const floor = Math.min(exp, o.baseMs / 2);
  return Math.round(floor + (exp - floor) * random());
}

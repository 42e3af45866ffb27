import type { Clock } from '../core/clock';
import type { NonceSource } from './nonce-source';

/**
 * Nonces for one process: Unix ms on the server's clock, strictly increasing per API key:
 * `max(now + clockOffset, last + 1)`. With `nonceWindow: true` the exchange wants them within
 * +-5 s of its clock and never reused; a burst of more than 1000 requests per second runs ahead of
 * the clock by a few ms, which the window absorbs. Several processes sharing one key need the
 * Redis allocator instead (same rule, atomic in Lua).
 */
export class InMemoryNonceSource implements NonceSource {
  private readonly last = new Map<string, number>();
  private offsetMs = 0;

  constructor(private readonly clock: Clock) {}

  nextNonce(apiKey: string): Promise<number> {
    return Promise.resolve(this.nextNonceSync(apiKey));
  }

  /** The same nonce without a Promise: the request runner signs synchronously when it can. */
  nextNonceSync(apiKey: string): number {
    const now = Math.floor(this.clock.nowMs() + this.offsetMs);
    const next = Math.max(now, (this.last.get(apiKey) ?? 0) + 1);
    this.last.set(apiKey, next);
    return next;
  }

  setClockOffsetMs(offsetMs: number): void {
    if (!Number.isFinite(offsetMs)) return;
    this.offsetMs = offsetMs;
  }
}

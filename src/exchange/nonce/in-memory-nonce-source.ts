import type { NonceSource } from './nonce-source';
import { errorForLuaCode, LuaErrorCode } from '../../store/scripts';
import { checkedOffset, nonceSettings, type NonceSettings, type NonceSourceOptions } from './redis-nonce-source';

/**
 * The one in-process nonce source (paper mode without Redis, CLI commands, tests, benchmarks), with
 * the same rule, throttle and ceiling as RedisNonceSource (reserve-nonce.lua):
 * `max(now + offset, last + 1)`, never more than `maxLeadMs` ahead of the estimated exchange clock,
 * never stored above `local + maxClockOffsetMs + maxLeadMs` (a poisoned `last` is replaced by `now`).
 * Several processes sharing an API key need the Redis source.
 */
export class InMemoryNonceSource implements NonceSource {
  private readonly settings: NonceSettings;
  private readonly last = new Map<string, number>();
  private offsetMs = 0;
  throttled = 0;
  /** Times a `last` beyond the ceiling was replaced (nothing in-process can cause it but a bug). */
  repaired = 0;

  constructor(opts: NonceSourceOptions = {}) {
    this.settings = nonceSettings(opts);
  }

  setClockOffsetMs(offsetMs: number): void {
    this.offsetMs = checkedOffset(offsetMs, this.settings.maxClockOffsetMs);
  }

  /** The next nonce, or undefined when it would run more than maxLeadMs ahead (nextNonce waits then). */
  private reserve(apiKey: string): number | undefined {
    const local = Math.trunc(this.settings.clock.nowMs());
    const now = local + this.offsetMs;
    let last = this.last.get(apiKey) ?? 0;
    if (last > local + this.settings.maxClockOffsetMs + this.settings.maxLeadMs) {
      this.repaired++;
      last = 0;
    }
    const nonce = Math.max(now, last + 1);
    if (nonce - now > this.settings.maxLeadMs) return undefined;
    this.last.set(apiKey, nonce);
    return nonce;
  }

  repairPoisoned(apiKey: string): Promise<{ readonly repaired: boolean; readonly last: number }> {
    const last = this.last.get(apiKey) ?? 0;
    const local = Math.trunc(this.settings.clock.nowMs());
    if (last <= local + this.settings.maxClockOffsetMs + this.settings.maxLeadMs) return Promise.resolve({ repaired: false, last });
    this.last.set(apiKey, local + this.offsetMs);
    return Promise.resolve({ repaired: true, last });
  }

  /** Nothing to raise: this process's memory is the store and never loses a write. */
  raisePastIssued(): Promise<number> {
    return Promise.resolve(0);
  }

  async nextNonce(apiKey: string): Promise<number> {
    const { clock, maxLeadMs, maxWaitMs, sleep } = this.settings;
    let waited = 0;
    for (;;) {
      const nonce = this.reserve(apiKey);
      if (nonce !== undefined) return nonce;
      // Same check as the Lua script; no await between reading and writing `last`, so it is atomic here.
      const waitMs = (this.last.get(apiKey) ?? 0) + 1 - Math.trunc(clock.nowMs() + this.offsetMs) - maxLeadMs;
      if (waited + waitMs > maxWaitMs) throw errorForLuaCode(LuaErrorCode.NonceAhead, { waitedMs: waited, waitMs, maxLeadMs });
      this.throttled++;
      await sleep(waitMs);
      waited += waitMs;
    }
  }
}

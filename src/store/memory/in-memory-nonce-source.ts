import { errorForLuaCode, LuaErrorCode } from '../scripts';
import type { NonceSource } from '../../exchange/nonce-source';
import { ConfigError } from '../../domain/errors';
import { nonceSettings, type NonceSourceOptions } from '../redis-nonce-source';

/**
 * One process's nonces with the same rule and throttle as RedisNonceSource (reserve-nonce.lua):
 * `max(now + offset, last + 1)`, never more than `maxLeadMs` ahead. For paper mode without Redis
 * and for a single process; several processes sharing an API key need the Redis source.
 */
export class InMemoryNonceSource implements NonceSource {
  private readonly settings: ReturnType<typeof nonceSettings>;
  private readonly last = new Map<string, number>();
  private offsetMs = 0;
  throttled = 0;

  constructor(opts: NonceSourceOptions = {}) {
    this.settings = nonceSettings(opts);
  }

  setClockOffsetMs(offsetMs: number): void {
    if (!Number.isFinite(offsetMs)) throw new ConfigError(`clock offset must be finite, got ${offsetMs}`, { path: 'clockOffsetMs' });
    this.offsetMs = Math.round(offsetMs);
  }

  async nextNonce(apiKey: string): Promise<number> {
    const { clock, maxLeadMs, maxWaitMs, sleep } = this.settings;
    let waited = 0;
    for (;;) {
      const now = Math.trunc(clock.nowMs() + this.offsetMs);
      const nonce = Math.max(now, (this.last.get(apiKey) ?? 0) + 1);
      const lead = nonce - now;
      // Same check as the Lua script; no await between reading and writing `last`, so it is atomic here.
      if (lead <= maxLeadMs) {
        this.last.set(apiKey, nonce);
        return nonce;
      }
      const waitMs = lead - maxLeadMs;
      if (waited + waitMs > maxWaitMs) throw errorForLuaCode(LuaErrorCode.NonceAhead, { waitedMs: waited, waitMs, maxLeadMs });
      this.throttled++;
      await sleep(waitMs);
      waited += waitMs;
    }
  }
}

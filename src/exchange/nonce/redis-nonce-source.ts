import type { RedisConnection } from '../../store/redis';
import { SystemClock, type Clock } from '../../core/clock';
import { ConfigError, StoreUnavailableError } from '../../domain/errors';
import { MAX_CLOCK_OFFSET_MS, type NonceSource } from './nonce-source';
import { DEFAULT_KEY_PREFIX, StoreKeys } from '../../store/keys';
import { withStore } from '../../store/redis';
import { errorForLuaCode, LuaErrorCode, replyCode, storeScripts, type StoreScripts } from '../../store/scripts';

export interface NonceSourceOptions {
  /** Reads the local clock; the nonce is this plus the measured offset (default SystemClock). */
  readonly clock?: Clock;
  /** How far ahead of the estimated exchange time a nonce may run (default 4000; the exchange allows 5000). */
  readonly maxLeadMs?: number;
  /** Total time one call may spend throttled before it gives up with NotReadyError (default 10 000). */
  readonly maxWaitMs?: number;
  /** Injected for tests (a ManualClock advances instead of sleeping). */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * The largest server-minus-local clock offset nonces may follow (default MAX_CLOCK_OFFSET_MS, 60 s).
   * With it, no nonce is ever stored more than `maxClockOffsetMs + maxLeadMs` ahead of the local clock.
   */
  readonly maxClockOffsetMs?: number;
}

export interface RedisNonceSourceOptions extends NonceSourceOptions {
  readonly redis: RedisConnection;
  readonly prefix?: string;
  /** Expiry of an idle nonce key (default 1 day). */
  readonly ttlMs?: number;
}

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface NonceSettings {
  readonly clock: Clock;
  readonly maxLeadMs: number;
  readonly maxWaitMs: number;
  readonly maxClockOffsetMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Validated common settings of both nonce sources. */
export function nonceSettings(opts: NonceSourceOptions): NonceSettings {
  const maxLeadMs = opts.maxLeadMs ?? 4000;
  const maxWaitMs = opts.maxWaitMs ?? 10_000;
  const maxClockOffsetMs = opts.maxClockOffsetMs ?? MAX_CLOCK_OFFSET_MS;
  if (!Number.isSafeInteger(maxLeadMs) || maxLeadMs < 0 || maxLeadMs >= 5000) {
    throw new ConfigError(`nonce maxLeadMs must be an integer in [0, 5000), got ${maxLeadMs}`, { path: 'nonce.maxLeadMs' });
  }
  if (!Number.isSafeInteger(maxClockOffsetMs) || maxClockOffsetMs < 0) {
    throw new ConfigError(`nonce maxClockOffsetMs must be a non-negative integer, got ${maxClockOffsetMs}`, { path: 'nonce.maxClockOffsetMs' });
  }
  return { clock: opts.clock ?? new SystemClock(), maxLeadMs, maxWaitMs, maxClockOffsetMs, sleep: opts.sleep ?? defaultSleep };
}

/**
 * A measured offset as a nonce source takes it: finite and within +-maxClockOffsetMs, rounded. A
 * larger one is refused: following it would store nonces far from the local clock (a server clock
 * 30 years ahead poisoned the shared nonce for a day). syncClockOffset never hands one over.
 */
export function checkedOffset(offsetMs: number, maxClockOffsetMs: number): number {
  if (!Number.isFinite(offsetMs)) throw new ConfigError(`clock offset must be finite, got ${offsetMs}`, { path: 'clockOffsetMs' });
  if (Math.abs(offsetMs) > maxClockOffsetMs) {
    throw new ConfigError(`clock offset ${Math.round(offsetMs)} ms is beyond +-${maxClockOffsetMs} ms: nonces keep the local clock`, { path: 'clockOffsetMs' });
  }
  return Math.round(offsetMs);
}

/**
 * Nonces shared by every process using one API key: `max(now_ms + clock_offset, last + 1)`,
 * allocated atomically by reserve-nonce.lua, so concurrent processes never collide and each
 * process sees strictly increasing values.
 *
 * Whose clock: the CALLER's (local clock + offset measured against the exchange's /public/time),
 * not Redis TIME. The offset was measured on this host's clock, so local + offset is this host's best
 * estimate of the exchange's clock, which is what the +-5 s window is about; Redis TIME would need
 * a second, unmeasured offset (Redis host vs exchange). It also lets tests drive a ManualClock.
 *
 * Throttle, never run ahead: at more than one nonce per ms, `last + 1` drifts ahead of the clock.
 * Past `maxLeadMs` the script refuses and returns how long to wait; this class sleeps that long and
 * retries, up to `maxWaitMs` in total, then throws NotReadyError (a clock far ahead elsewhere, most
 * likely; nothing was sent). Redis failures throw StoreUnavailableError at once.
 */
export class RedisNonceSource implements NonceSource {
  private readonly scripts: StoreScripts;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly settings: ReturnType<typeof nonceSettings>;
  private readonly keyCache = new Map<string, string>();
  /** The highest nonce handed out per key, for raisePastIssued. */
  private readonly issued = new Map<string, number>();
  private offsetMs = 0;
  /** Times a call had to wait for the clock (for metrics). */
  throttled = 0;
  /** Times a poisoned nonce (above the ceiling) was replaced while allocating. */
  repaired = 0;
  /** Times the store gave a nonce at or below one this process had sent (lost in a failover) and was raised. */
  raisedAfterLoss = 0;

  constructor(opts: RedisNonceSourceOptions) {
    this.scripts = storeScripts(opts.redis);
    this.prefix = opts.prefix ?? DEFAULT_KEY_PREFIX;
    this.ttlMs = opts.ttlMs ?? 86_400_000;
    this.settings = nonceSettings(opts);
  }

  setClockOffsetMs(offsetMs: number): void {
    this.offsetMs = checkedOffset(offsetMs, this.settings.maxClockOffsetMs);
  }

  async nextNonce(apiKey: string): Promise<number> {
    const key = this.keyFor(apiKey);
    const { clock, maxLeadMs, maxWaitMs, sleep } = this.settings;
    let waited = 0;
    let raisedHere = 0;
    for (;;) {
      const local = clock.nowMs();
      const now = local + this.offsetMs;
      const ceiling = this.ceiling(local);
      const reply = await withStore('reserveNonce', () => this.scripts.reserveNonce(key, now, maxLeadMs, this.ttlMs, ceiling));
      const code = replyCode(reply);
      if (code === 1 || code === 2) {
        if (code === 2) this.repaired++;
        const nonce = Number(reply[1]);
        const highest = this.issued.get(key) ?? 0;
        if (nonce > highest) {
          this.issued.set(key, nonce);
          return nonce;
        }
        // The store lost nonces this process sent (a Redis failover): raised past them, then asked again.
        if (++raisedHere > 2) throw new StoreUnavailableError('the stored nonce stays below one already sent after raising it', { key });
        this.raisedAfterLoss++;
        await withStore('raiseNonce', () => this.scripts.raiseNonce(key, highest, this.ttlMs));
        continue;
      }
      const waitMs = Number(reply[1]);
      if (code !== LuaErrorCode.NonceAhead || waited + waitMs > maxWaitMs) {
        throw errorForLuaCode(code, { waitedMs: waited, waitMs, maxLeadMs });
      }
      this.throttled++;
      await sleep(waitMs);
      waited += waitMs;
    }
  }

  /**
   * The start-up check: a stored nonce above the ceiling (poisoned by a far-future clock) is replaced
   * by now. Returns the poisoned value when it repaired one; the caller logs it.
   */
  async repairPoisoned(apiKey: string): Promise<{ readonly repaired: boolean; readonly last: number }> {
    const local = this.settings.clock.nowMs();
    const reply = await withStore('repairNonce', () => this.scripts.repairNonce(this.keyFor(apiKey), local + this.offsetMs, this.ceiling(local), this.ttlMs));
    return { repaired: replyCode(reply) === 1, last: Number(reply[1]) };
  }

  async raisePastIssued(): Promise<number> {
    let raised = 0;
    for (const [key, highest] of this.issued) {
      const reply = await withStore('raiseNonce', () => this.scripts.raiseNonce(key, highest, this.ttlMs));
      if (replyCode(reply) === 1) raised++;
    }
    return raised;
  }

  /** No nonce is stored above this: the local clock plus the largest offset followed plus the lead. */
  private ceiling(localMs: number): number {
    return localMs + this.settings.maxClockOffsetMs + this.settings.maxLeadMs;
  }

  private keyFor(apiKey: string): string {
    let key = this.keyCache.get(apiKey);
    if (key === undefined) {
      key = StoreKeys.forApiKey(apiKey, this.prefix).nonce();
      this.keyCache.set(apiKey, key);
    }
    return key;
  }
}

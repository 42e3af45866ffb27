import type { Clock } from '../../core/clock';
import { syncClockOffset, type ClockSync } from '../../exchange/clock-offset';
import type { NonceSource } from '../../exchange/nonce/nonce-source';
import type { Logger } from '../../log/logger';
import type { Metrics } from '../../metrics/registry';

export interface ClockGuardInput {
  readonly exchange: { fetchServerTime(): Promise<number> };
  readonly wallClock: Clock;
  readonly nonces: NonceSource;
  readonly metrics: Metrics;
  readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/**
 * Measures the exchange's clock and says what follows, in the log and in
 * tradebot_exchange_clock_offset_seconds (alert TradebotClockOffsetTooLarge). See ClockSync: a clock
 * further off than the bound is not followed (nonces keep the local clock) and the caller refuses to
 * trade; an unreachable /time keeps the offset nonces had. Never throws.
 */
export async function measureExchangeClock(i: ClockGuardInput): Promise<ClockSync> {
  const sync = await syncClockOffset(i.exchange, i.wallClock, i.nonces);
  if (sync.status === 'unreachable') {
    i.log.warn({ err: sync.error }, 'exchange server time unreachable: nonces use the local clock (offset unchanged); signing goes on');
    return sync;
  }
  i.metrics.clockOffset.set(sync.offsetMs / 1000);
  if (sync.status === 'too_far') {
    i.log.error({ offsetMs: sync.offsetMs, maxOffsetMs: sync.maxOffsetMs, roundTripMs: sync.roundTripMs },
      `exchange clock is ${Math.round(sync.offsetMs / 1000)} s off the local clock (limit ${sync.maxOffsetMs / 1000} s): not followed, nonces use the local clock, trading refused. Check NTP on this host and exchange.baseUrl`);
  } else {
    i.log.info({ offsetMs: sync.offsetMs, roundTripMs: sync.roundTripMs }, 'clock offset measured');
  }
  return sync;
}

/**
 * The start-up check of the API key's stored nonce (docs/daemon.md "Clock and nonces"): a nonce
 * poisoned by a far-future clock (an older version followed a server clock decades ahead) would get
 * every signed call refused until it expires; it is replaced by now, and said so.
 */
export async function repairPoisonedNonce(nonces: NonceSource, apiKey: string, log: Pick<Logger, 'error'>): Promise<boolean> {
  const result = await nonces.repairPoisoned(apiKey);
  if (result.repaired) {
    log.error({ poisonedNonce: result.last, poisonedAt: new Date(Math.min(result.last, 8.64e15)).toISOString() },
      'stored nonce was far in the future (poisoned by a wrong server clock): reset to the current time so signed requests are accepted again');
  }
  return result.repaired;
}

import type { Clock } from '../core/clock';
import { MAX_CLOCK_OFFSET_MS, type NonceSource } from './nonce/nonce-source';

export interface ClockOffsetSample {
  /** Server clock minus local clock, ms. */
  readonly offsetMs: number;
  /** Round trip of the measuring request, ms: the offset is known to within half of it. */
  readonly roundTripMs: number;
}

/**
 * Measures server-minus-local time from GET /api/v4/public/time: the server's answer is taken to
 * belong to the midpoint of the round trip (NTP's assumption of a symmetric path). Of `samples`
 * measurements the one with the shortest round trip wins (the least queueing noise). The server
 * answers in whole seconds, so the estimate can be up to 1 s off; the nonce window is +-5 s.
 */
export async function measureClockOffset(
  fetchServerTimeMs: () => Promise<number>,
  clock: Clock,
  samples = 3,
): Promise<ClockOffsetSample> {
  let best: ClockOffsetSample | undefined;
  for (let i = 0; i < Math.max(1, samples); i++) {
    const sentAt = clock.nowMs();
    const serverMs = await fetchServerTimeMs();
    const receivedAt = clock.nowMs();
    const sample = { offsetMs: Math.round(serverMs - (sentAt + receivedAt) / 2), roundTripMs: receivedAt - sentAt };
    if (best === undefined || sample.roundTripMs < best.roundTripMs) best = sample;
  }
  return best as ClockOffsetSample;
}

/**
 * What one clock measurement did:
 * - `ok`: the offset is within +-maxOffsetMs and nonces follow the server's clock;
 * - `too_far`: the server's clock is further off than that (a clock decades ahead, a broken NTP, a
 *   hostile server): not trusted; nonces keep the local clock; the daemon refuses to trade and alerts;
 * - `unreachable`: /time failed; nonces keep the offset they had (the local clock at start-up).
 */
export type ClockSync =
  | { readonly status: 'ok'; readonly offsetMs: number; readonly roundTripMs: number }
  | { readonly status: 'too_far'; readonly offsetMs: number; readonly roundTripMs: number; readonly maxOffsetMs: number }
  | { readonly status: 'unreachable'; readonly error: unknown };

/** Measures the offset and hands it to the nonce source when it is believable (see ClockSync). Never throws. */
export async function syncClockOffset(
  exchange: { fetchServerTime(): Promise<number> },
  clock: Clock,
  nonceSource: NonceSource,
  samples = 3,
  maxOffsetMs: number = MAX_CLOCK_OFFSET_MS,
): Promise<ClockSync> {
  let sample: ClockOffsetSample;
  try {
    sample = await measureClockOffset(() => exchange.fetchServerTime(), clock, samples);
  } catch (error) {
    return { status: 'unreachable', error };
  }
  if (!Number.isFinite(sample.offsetMs) || Math.abs(sample.offsetMs) > maxOffsetMs) {
    nonceSource.setClockOffsetMs(0);
    return { status: 'too_far', offsetMs: sample.offsetMs, roundTripMs: sample.roundTripMs, maxOffsetMs };
  }
  nonceSource.setClockOffsetMs(sample.offsetMs);
  return { status: 'ok', offsetMs: sample.offsetMs, roundTripMs: sample.roundTripMs };
}

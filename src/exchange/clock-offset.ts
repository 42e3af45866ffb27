import type { Clock } from '../core/clock';
import type { NonceSource } from './nonce-source';

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

/** Measures the offset and hands it to the nonce source, so nonces follow the server's clock. */
export async function syncClockOffset(
  exchange: { fetchServerTime(): Promise<number> },
  clock: Clock,
  nonceSource: NonceSource,
  samples = 3,
): Promise<ClockOffsetSample> {
  const sample = await measureClockOffset(() => exchange.fetchServerTime(), clock, samples);
  nonceSource.setClockOffsetMs(sample.offsetMs);
  return sample;
}

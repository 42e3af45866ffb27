import type { Clock, ManualClock } from '../../core/clock';

/**
 * `GET /_sim/clock`: the simulator's MARKET clock, outside the venue's API (no `/api/` prefix, no
 * auth, no rate limit, no faults: it is not part of what is simulated). The venue's `/public/time`
 * answers the wall clock, because clients derive nonces from it; a paper daemon trading against a
 * standalone `tradebot sim-exchange` reads this instead to see candles at the accelerated replay
 * time (src/simulator/remote-sim-clock.ts).
 *
 * Answer: `{"marketTimeMs": 1632000000000, "speed": 60, "wallTimeMs": 1760000000000}`: market time in
 * Unix ms, market ms per real ms (0 = frozen), and the server's wall time of the same instant.
 */
export const SIM_CLOCK_PATH = '/_sim/clock';

export interface SimClockAnswer {
  readonly marketTimeMs: number;
  readonly speed: number;
  readonly wallTimeMs: number;
}

export function simClockAnswer(market: ManualClock, wall: Clock): SimClockAnswer {
  return { marketTimeMs: Math.floor(market.nowMs()), speed: market.speed, wallTimeMs: wall.nowMs() };
}

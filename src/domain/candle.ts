import type { Decimal } from './decimal';

/** Candle intervals the exchange's kline endpoint accepts. */
export const INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1M'] as const;
export type Interval = (typeof INTERVALS)[number];

const FIXED_SECONDS: Record<Exclude<Interval, '1M'>, number> = {
  '1m': 60, '3m': 180, '5m': 300, '15m': 900, '30m': 1800,
  '1h': 3600, '2h': 7200, '4h': 14_400, '6h': 21_600, '8h': 28_800, '12h': 43_200,
  '1d': 86_400, '3d': 259_200, '1w': 604_800,
};

export function isInterval(value: unknown): value is Interval {
  return typeof value === 'string' && (INTERVALS as readonly string[]).includes(value);
}

/**
 * Length of an interval in seconds. A month is calendar-dependent; callers that need exact month
 * boundaries use candleOpenTime/nextCandleOpenTime. For 1M this returns 30 days (used only for
 * staleness limits and paging estimates).
 */
export function intervalSeconds(interval: Interval): number {
  return interval === '1M' ? 30 * 86_400 : FIXED_SECONDS[interval];
}

/** Open time (Unix seconds) of the candle that contains `t`. Weeks start on Monday, as on the exchange. */
export function candleOpenTime(interval: Interval, t: number): number {
  if (interval === '1M') {
    const d = new Date(t * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  }
  if (interval === '1w') {
    const mondayOffset = 4 * 86_400; // 1970-01-01 was a Thursday; Monday 1970-01-05 starts week zero.
    return Math.floor((t - mondayOffset) / 604_800) * 604_800 + mondayOffset;
  }
  const size = FIXED_SECONDS[interval];
  return Math.floor(t / size) * size;
}

/** Open time of the candle after the one opening at `openTime`. */
export function nextCandleOpenTime(interval: Interval, openTime: number): number {
  if (interval === '1M') {
    const d = new Date(openTime * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  }
  return openTime + FIXED_SECONDS[interval];
}

/**
 * A candle with named fields. `time` is the open time in Unix seconds. The exchange's wire row is
 * [time, open, CLOSE, HIGH, LOW, volumeStock, volumeMoney]; the client converts it once, at the edge.
 */
export interface Candle {
  readonly time: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  /** Volume in the stock (base) currency. */
  readonly volume: Decimal;
  /** Volume in the money (quote) currency. */
  readonly volumeMoney: Decimal;
}

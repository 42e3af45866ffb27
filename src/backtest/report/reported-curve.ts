import { intervalSeconds, type Interval } from '../../domain/candle';
import { drawdownExtremes } from './metrics';
import type { BacktestFill, EquityPoint, EquitySeries } from './types';

export interface ReportedCurveOptions {
  /** The strategy's interval: a point at each of its close instants (UTC-aligned, as its candles). */
  readonly interval: Interval;
  /** Every fill gets the point it lands in (the first close instant after it). */
  readonly fills: readonly BacktestFill[];
  /** Every point (`--full-curve`). */
  readonly full?: boolean | undefined;
}

/**
 * The points of a full-resolution curve that report.json writes and report.html draws (format 3):
 * the first and last points, one at each close instant of the strategy's interval, the point of
 * every fill, and the peaks and troughs of the largest drawdown (amount and percent), so the curve
 * shows what the metrics measured. A month of 1m data at 1h is ~720 points instead of 43,080.
 * The metrics are still computed from the full curve (BacktestRun.curve).
 */
export function reportedCurve(curve: EquitySeries, o: ReportedCurveOptions): EquityPoint[] {
  const n = curve.length;
  if (n === 0) return [];
  const keep = new Uint8Array(n);
  const mark = (k: number): void => {
    if (k >= 0 && k < n) keep[k] = 1;
  };
  if (o.full === true) keep.fill(1);
  mark(0);
  mark(n - 1);
  const step = intervalSeconds(o.interval);
  const times = curve.times;
  for (let k = 1; k < n; k++) if ((times[k] as number) % step === 0) keep[k] = 1;
  for (const f of o.fills) mark(landingPoint(times, f.time));
  const dd = drawdownExtremes(curve.values);
  mark(dd.from);
  mark(dd.to);
  mark(dd.pctFrom);
  mark(dd.pctTo);
  const out: EquityPoint[] = [];
  for (let k = 0; k < n; k++) if (keep[k] === 1) out.push(curve.point(k));
  return out;
}

/** The point a fill at `time` is counted in (buildEquitySeries): the first point after 0 whose time is later, else the last. */
function landingPoint(times: ArrayLike<number>, time: number): number {
  let lo = 1;
  let hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) > time) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

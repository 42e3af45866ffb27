import type { EquityPoint, EquitySeries } from './types';

/** A curve given as points (a test's, a stitched walk-forward's) seen as a series. */
export function seriesOfPoints(points: readonly EquityPoint[]): EquitySeries {
  return {
    length: points.length,
    times: points.map((p) => p.time),
    values: points.map((p) => p.value ?? p.equity.toNumber()),
    point: (k) => points[k] as EquityPoint,
  };
}

/** The full-resolution curve of a run: its `curve` when it has one, else its points. */
export function fullCurveOf(run: { readonly equity: readonly EquityPoint[]; readonly curve?: EquitySeries | undefined }): EquitySeries {
  return run.curve ?? seriesOfPoints(run.equity);
}

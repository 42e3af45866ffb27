/** A point kept for drawing; `gapBefore` means "do not connect it to the previous point". */
export interface DrawPoint {
  readonly t: number;
  readonly v: number;
  readonly gapBefore: boolean;
}

/**
 * Reduces a time series to at most 4 points per pixel column (M4: first, min, max and last of
 * each bucket, in time order), which draws the same line as the full series at that width.
 * 100k candles on a 900 px chart become at most 3600 points. A step in time larger than
 * `maxStep` (a data gap) starts a new line segment instead of bridging the gap.
 * `times` must be ascending; `from`..`to` is the chart's time range.
 */
export function downsampleM4(times: readonly number[], values: readonly number[], from: number, to: number, buckets: number, maxStep: number): DrawPoint[] {
  const out: DrawPoint[] = [];
  const span = to > from ? to - from : 1;
  let bucket = -1;
  let picks: number[] = [];
  let pendingGap = false;
  const flush = (): void => {
    const unique = [...new Set(picks)].sort((a, b) => a - b);
    unique.forEach((i, k) => {
      out.push({ t: times[i] as number, v: values[i] as number, gapBefore: k === 0 && (pendingGap || out.length === 0) });
    });
    if (unique.length > 0) pendingGap = false;
    picks = [];
  };
  let first = 0;
  let min = 0;
  let max = 0;
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number;
    const v = values[i] as number;
    const b = Math.min(buckets - 1, Math.max(0, Math.floor(((t - from) / span) * buckets)));
    const gap = i > 0 && t - (times[i - 1] as number) > maxStep;
    if (b !== bucket || gap) {
      if (bucket !== -1) picks = [first, min, max, i - 1];
      flush();
      if (gap) pendingGap = true;
      bucket = b;
      first = min = max = i;
    } else {
      if (v < (values[min] as number)) min = i;
      if (v > (values[max] as number)) max = i;
    }
  }
  if (bucket !== -1) picks = [first, min, max, times.length - 1];
  flush();
  return out;
}

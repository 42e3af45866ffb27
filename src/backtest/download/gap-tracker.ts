/** A run of missing candles: open times `from`..`to` inclusive. */
export interface DownloadGap {
  readonly from: number;
  readonly to: number;
  readonly missing: number;
}

/**
 * Watches the open times written, in order, and collects gaps (missing candles, the data's or the
 * exchange's outages: never filled in) and duplicates (a time at or before the last one written,
 * which is dropped).
 */
export class GapTracker {
  readonly gaps: DownloadGap[] = [];
  duplicates = 0;
  private last: number | undefined;

  constructor(private readonly step: number, start: number | undefined, lastWritten?: number) {
    // A leading gap counts from the requested start (or after the rows already in a resumed file).
    this.last = lastWritten ?? (start === undefined ? undefined : start - step);
  }

  /** True when the row is new and should be written. */
  accept(time: number): boolean {
    if (this.last !== undefined && time <= this.last) {
      this.duplicates++;
      return false;
    }
    if (this.last !== undefined && time > this.last + this.step) {
      const from = this.last + this.step;
      const to = time - this.step;
      this.gaps.push({ from, to, missing: Math.round((to - from) / this.step) + 1 });
    }
    this.last = time;
    return true;
  }
}

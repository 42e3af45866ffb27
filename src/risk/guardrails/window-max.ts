import type { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';

/** One sample: time (ms) and value. */
export type Sample = readonly [number, Decimal];

/**
 * The highest value pushed within the last `windowMs` (a monotonic deque: each sample is pushed and
 * dropped once), so a year of 1-minute marks costs O(1) per mark instead of a scan of the window.
 */
export class WindowMax {
  private deque: Sample[] = [];
  private head = 0;

  constructor(readonly windowMs: number) {}

  push(timeMs: number, value: Decimal): void {
    while (this.deque.length > this.head && compareDecimals((this.deque[this.deque.length - 1] as Sample)[1], value) <= 0) this.deque.pop();
    this.deque.push([timeMs, value]);
    this.evict(timeMs);
  }

  /** The highest value of the samples newer than `nowMs - windowMs`; undefined when there are none. */
  max(nowMs: number): Decimal | undefined {
    this.evict(nowMs);
    return this.deque[this.head]?.[1];
  }

  /** The samples still kept (the snapshot a restart restores). */
  samples(): readonly Sample[] {
    return this.deque.slice(this.head);
  }

  restore(samples: readonly Sample[]): void {
    this.deque = [];
    this.head = 0;
    for (const [t, v] of samples) this.push(t, v);
  }

  private evict(nowMs: number): void {
    const from = nowMs - this.windowMs;
    while (this.head < this.deque.length && (this.deque[this.head] as Sample)[0] <= from) this.head++;
    // Compact now and then so a long run does not keep every dropped sample.
    if (this.head > 1024 && this.head * 2 > this.deque.length) {
      this.deque = this.deque.slice(this.head);
      this.head = 0;
    }
  }
}

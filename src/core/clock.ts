/**
 * Time is injected. Live and paper trading use SystemClock; backtests and tests use ManualClock,
 * whose time only moves when told to.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }
}

export class ManualClock implements Clock {
  constructor(private currentMs: number = 0) {}
  nowMs(): number {
    return this.currentMs;
  }
  setMs(ms: number): void {
    this.currentMs = ms;
  }
  advanceMs(ms: number): void {
    this.currentMs += ms;
  }
}

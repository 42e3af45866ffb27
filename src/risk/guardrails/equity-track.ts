import { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';
import type { DrawdownRule } from './guard-rules';
import { WindowMax, type Sample } from './window-max';

/** What a restart restores of one equity track. */
export interface EquityTrackSnapshot {
  readonly peak?: string | undefined;
  readonly current: string;
  /** Per window (ms, as a string key): the samples kept for its peak. */
  readonly windows: Readonly<Record<string, readonly (readonly [number, string])[]>>;
}

const ZERO = new Decimal(0);

/**
 * The equity of one scope (a strategy, or the account) as marked at each settled candle, with its
 * all-time peak and the peak within each window a drawdown rule names.
 */
export class EquityTrack {
  private peak: Decimal | undefined;
  private current: Decimal = ZERO;
  private lastMs = 0;
  private readonly windows = new Map<number, WindowMax>();

  constructor(rules: readonly DrawdownRule[]) {
    for (const r of rules) if (r.windowMs !== undefined && !this.windows.has(r.windowMs)) this.windows.set(r.windowMs, new WindowMax(r.windowMs));
  }

  mark(timeMs: number, equity: Decimal): void {
    this.lastMs = timeMs;
    this.current = equity;
    if (this.peak === undefined || compareDecimals(equity, this.peak) > 0) this.peak = equity;
    for (const w of this.windows.values()) w.push(timeMs, equity);
  }

  get equity(): Decimal {
    return this.current;
  }

  /** Peak minus current equity for the rule's peak (0 before the first mark). */
  drawdown(rule: DrawdownRule, nowMs: number): Decimal {
    const peak = rule.windowMs === undefined ? this.peak : this.windows.get(rule.windowMs)?.max(nowMs);
    if (peak === undefined) return ZERO;
    const dd = peak.minus(this.current);
    return dd.isNegative() ? ZERO : dd;
  }

  /**
   * The peaks start again from the equity now: an operator who lifts a drawdown stop accepts the loss
   * so far (else the stop would trip again at the next candle, the peak being where it was).
   */
  rebase(): void {
    this.peak = this.current;
    for (const w of this.windows.values()) w.restore([[this.lastMs, this.current]]);
  }

  snapshot(): EquityTrackSnapshot {
    const windows: Record<string, (readonly [number, string])[]> = {};
    for (const [ms, w] of this.windows) windows[String(ms)] = w.samples().map(([t, v]) => [t, v.toString()] as const);
    return { peak: this.peak?.toString(), current: this.current.toString(), windows };
  }

  restore(s: EquityTrackSnapshot): void {
    this.peak = s.peak === undefined ? undefined : new Decimal(s.peak);
    this.current = new Decimal(s.current);
    for (const [ms, w] of this.windows) {
      const samples = s.windows[String(ms)] ?? [];
      w.restore(samples.map(([t, v]): Sample => [t, new Decimal(v)]));
    }
  }
}

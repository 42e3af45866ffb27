import { Decimal } from '../domain/decimal';
import type { Clock } from '../core/clock';

const DAY_MS = 86_400_000;

/** A realised profit (positive) or loss (negative) from a closed trade, in the common money currency. */
export interface RealizedPnlEvent {
  readonly amount: Decimal;
  /** When it was realised (ms); default the clock's now. */
  readonly timeMs?: number | undefined;
}

/**
 * Sums realised PnL per UTC day (day boundary from the injected clock, so backtests roll days on
 * simulated time). Events of a past day are ignored; a new day starts from zero.
 */
export class DailyPnl {
  private day = Number.NaN;
  private total = new Decimal(0);
  constructor(private readonly clock: Clock) {}

  record(event: RealizedPnlEvent): void {
    const day = Math.floor((event.timeMs ?? this.clock.nowMs()) / DAY_MS);
    const today = Math.floor(this.clock.nowMs() / DAY_MS);
    if (day < today) return;
    this.roll(today);
    this.total = this.total.plus(event.amount);
  }

  /** Realised PnL of the current UTC day. */
  today(): Decimal {
    this.roll(Math.floor(this.clock.nowMs() / DAY_MS));
    return this.total;
  }

  private roll(today: number): void {
    if (today !== this.day) {
      this.day = today;
      this.total = new Decimal(0);
    }
  }
}

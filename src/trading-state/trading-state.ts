import type { Intent } from '../domain/intent';

/**
 * Account-wide trading mode.
 * - `active`: every check applies normally.
 * - `reducing`: only exits and cancels pass (wind a book down without opening risk).
 * - `halted`: only cancels pass (cancels always reduce risk).
 */
export type TradingState = 'active' | 'halted' | 'reducing';
export const TRADING_STATES: readonly TradingState[] = ['active', 'halted', 'reducing'];

/**
 * Is this intent an exit? An explicit `purpose` wins. Without one, a sell is an exit and a buy an
 * entry: on a spot account a sell can only give up stock we hold, it can never open a short, so it
 * never adds exposure. (A strategy that opens positions with sells must mark them `purpose: 'entry'`.)
 */
export function isExit(intent: Intent): boolean {
  if (intent.kind === 'cancel') return true;
  if (intent.purpose !== undefined) return intent.purpose === 'exit';
  return intent.side === 'sell';
}

/** Holds the current state; `onChange` lets metrics and the executor observe transitions. */
export class TradingStateHolder {
  private current: TradingState;
  private reason: string;
  constructor(
    initial: TradingState = 'active',
    private readonly onChange?: (next: TradingState, previous: TradingState, reason: string) => void,
  ) {
    this.current = initial;
    this.reason = 'initial';
  }
  get state(): TradingState {
    return this.current;
  }
  get lastReason(): string {
    return this.reason;
  }
  set(next: TradingState, reason: string): void {
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    this.reason = reason;
    this.onChange?.(next, previous, reason);
  }
}

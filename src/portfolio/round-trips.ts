import { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { FillEffect, Portfolio, PortfolioFill, PositionState } from './portfolio';

/**
 * A position round trip: from flat (or the fill that flipped the position) back to flat, on one
 * (strategy, market). Its PnL is the portfolio's: the sum of what its fills realised (FillEffect);
 * nothing is re-priced here.
 */
export interface RoundTrip {
  readonly strategy: string;
  readonly market: MarketName;
  readonly direction: 'long' | 'short';
  /** The fill that opened it (Unix ms, PortfolioFill.timeMs). */
  readonly openTimeMs: number;
  /** The fill that made it flat (the last fill so far while open). */
  readonly closeTimeMs: number;
  /** Total amount entered (opening and adding fills), = total amount exited once closed. */
  readonly entered: Decimal;
  /** Σ amount x price of the entering fills (or parts of a flipping fill). */
  readonly entryNotional: Decimal;
  readonly exited: Decimal;
  readonly exitNotional: Decimal;
  /** The portfolio's realised PnL before fees over the trip's closing fills. */
  readonly gross: Decimal;
  /** Fees of its fills; a flipping fill's fee is shared pro rata by amount between the trip it closes and the one it opens. */
  readonly fees: Decimal;
  /** Fills touching it (a flipping fill counts in both trips). */
  readonly fills: number;
}

type MutableTrip = { -readonly [K in keyof RoundTrip]: RoundTrip[K] };

/** What one fill did in round-trip terms: opened or added, reduced or closed, or closed one trip and opened the next. */
export type RoundTripAction = 'entry' | 'exit' | 'flip';

const ZERO = new Decimal(0);

/**
 * Groups a portfolio's fills into position round trips, per (strategy, market), from the effects the
 * portfolio reports for each fill (the one place PnL is computed). Trips closed are handed to
 * `onClose` in order of closing; the trips still open can be read at any time.
 */
export class RoundTripBook {
  private readonly open = new Map<string, MutableTrip>();
  private last: RoundTripAction = 'entry';

  constructor(portfolio: Portfolio, private readonly onClose: (trip: RoundTrip, state: PositionState) => void) {
    portfolio.onFill((state, fill, _realized, effect) => this.record(state, fill, effect));
  }

  /** What the latest fill did (read right after applying it). */
  lastAction(): RoundTripAction {
    return this.last;
  }

  /** The trips still open, in order of opening. */
  openTrips(): readonly RoundTrip[] {
    return [...this.open.values()];
  }

  private record(state: PositionState, fill: PortfolioFill, effect: FillEffect): void {
    const key = `${fill.strategy}|${fill.market}`;
    const time = fill.timeMs ?? 0;
    const price = fill.price;
    if (effect.closed.isZero()) {
      const trip = this.open.get(key) ?? this.start(key, fill, time);
      this.enter(trip, fill.amount, price, fill.fee, time);
      this.last = 'entry';
      return;
    }
    const trip = this.open.get(key) as MutableTrip;
    const opened = fill.amount.minus(effect.closed);
    // The closing part's share of the fee; the opening part takes the rest, so the two add up exactly.
    const closeFee = opened.isZero() ? fill.fee : fill.fee.times(effect.closed).dividedBy(fill.amount);
    trip.exited = trip.exited.plus(effect.closed);
    trip.exitNotional = trip.exitNotional.plus(effect.closed.times(price));
    trip.gross = trip.gross.plus(effect.gross);
    trip.fees = trip.fees.plus(closeFee);
    trip.fills++;
    trip.closeTimeMs = time;
    if (!state.amount.isZero() && state.amount.isPositive() === effect.before.isPositive()) {
      this.last = 'exit'; // reduced, still open
      return;
    }
    this.open.delete(key);
    this.onClose(trip, state);
    if (opened.isZero()) {
      this.last = 'exit';
      return;
    }
    this.enter(this.start(key, fill, time), opened, price, fill.fee.minus(closeFee), time);
    this.last = 'flip';
  }

  private start(key: string, fill: PortfolioFill, time: number): MutableTrip {
    const trip: MutableTrip = {
      strategy: fill.strategy, market: fill.market, direction: fill.side === 'buy' ? 'long' : 'short', openTimeMs: time, closeTimeMs: time,
      entered: ZERO, entryNotional: ZERO, exited: ZERO, exitNotional: ZERO, gross: ZERO, fees: ZERO, fills: 0,
    };
    this.open.set(key, trip);
    return trip;
  }

  private enter(trip: MutableTrip, amount: Decimal, price: Decimal, fee: Decimal, time: number): void {
    trip.entered = trip.entered.plus(amount);
    trip.entryNotional = trip.entryNotional.plus(amount.times(price));
    trip.fees = trip.fees.plus(fee);
    trip.fills++;
    trip.closeTimeMs = time;
  }
}

import { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';

const ZERO = new Decimal(0);

/**
 * How much of a market may still trade in one stretch of time (one candle, or the time between two
 * candles): `share x volume` of the stock currency, shared by every order of the market, used up by
 * each fill. Unlimited when the fill model has no volume limit.
 */
export class Liquidity {
  private remaining: Decimal | undefined;
  private exhausted = false;

  /** `budget` undefined = unlimited. */
  constructor(budget: Decimal | undefined) {
    this.remaining = budget;
    if (budget !== undefined && budget.isZero()) this.exhausted = true;
  }

  static unlimited(): Liquidity {
    return new Liquidity(undefined);
  }

  /** The budget of a candle with `volume` traded, or unlimited for a null share. */
  static ofVolume(volume: Decimal, share: Decimal | null): Liquidity {
    return share === null ? Liquidity.unlimited() : new Liquidity(volume.times(share));
  }

  /** False once nothing more can fill in this stretch. */
  get available(): boolean {
    return !this.exhausted;
  }

  /**
   * The amount an order with `left` to fill may fill now, whole steps of `stockPrec` decimals, and
   * takes it from the budget. ZERO when nothing can fill. When the budget limits the fill, it is then
   * spent entirely (a remainder below one amount step cannot fill anything either).
   */
  take(left: Decimal, stockPrec: number): Decimal {
    if (this.exhausted) return ZERO;
    const remaining = this.remaining;
    if (remaining === undefined) return left;
    if (compareDecimals(left, remaining) <= 0) {
      this.remaining = remaining.minus(left);
      if (this.remaining.isZero()) this.exhausted = true;
      return left;
    }
    this.remaining = ZERO;
    this.exhausted = true;
    return remaining.toDecimalPlaces(stockPrec, Decimal.ROUND_DOWN);
  }
}

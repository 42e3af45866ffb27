import { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';

const ZERO = new Decimal(0);

/**
 * How much of a market may still trade in one stretch of time (one candle, or the time between two
 * candles): `share x volume` of the stock currency, shared by every order of the market, used up by
 * each fill. Unlimited when the fill model has no volume limit (share null). The product is computed
 * on the first fill only: most candles a backtest walks fill nothing.
 */
export class Liquidity {
  private remaining: Decimal | undefined;
  private exhausted: boolean;

  private constructor(private volume: Decimal | undefined, private readonly share: Decimal | null) {
    this.exhausted = volume !== undefined && share !== null && volume.isZero();
  }

  static unlimited(): Liquidity {
    return new Liquidity(undefined, null);
  }

  /** Nothing can trade (no candle has closed yet). */
  static none(): Liquidity {
    return new Liquidity(ZERO, ZERO);
  }

  /** The budget of a candle with `volume` traded, or unlimited for a null share. */
  static ofVolume(volume: Decimal, share: Decimal | null): Liquidity {
    return new Liquidity(volume, share);
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
    if (this.share === null) return left;
    if (this.volume !== undefined) {
      this.remaining = this.volume.times(this.share);
      this.volume = undefined;
    }
    const remaining = this.remaining as Decimal;
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

import type { Decimal } from '../../domain/decimal';
import type { MarketInfo } from '../../domain/market';
import type { Liquidity } from './liquidity';
import { CLOSE, ColumnCandle } from '../../candle-files/csv-columns';

/** The fields of the last applied candle the engine keeps reading. */
interface SettledCandle {
  readonly close: Decimal;
  readonly volume: Decimal;
}

/**
 * The engine's view of one market. After a candle, its close and volume are read from the candle
 * only when something asks (an order arrives, the next candle can reach an order): a backtest of a
 * year applies half a million candles, most of which nothing ever asks about, and its candles build
 * their Decimals on read (ColumnCandle). Read once, a value is kept until the next candle.
 */
export class MarketState {
  private candle: SettledCandle | undefined;
  private last: Decimal | undefined;
  private path: Decimal | undefined;
  private volume: Decimal | undefined;
  /** The liquidity left for arriving orders until the next candle (built on first use). */
  arrival: Liquidity | undefined;

  constructor(readonly info: MarketInfo) {}

  /** Price used for marketability and activation checks. */
  get lastPrice(): Decimal | undefined {
    if (this.last === undefined && this.candle !== undefined) this.last = this.path = this.candle.close;
    return this.last;
  }

  set lastPrice(price: Decimal | undefined) {
    this.settlePath();
    this.last = price;
  }

  /** Where the last applied candle path ended; the next candle's path starts here. */
  get pathPrice(): Decimal | undefined {
    if (this.path === undefined && this.candle !== undefined) this.last = this.path = this.candle.close;
    return this.path;
  }

  set pathPrice(price: Decimal | undefined) {
    this.settleLast();
    this.path = price;
  }

  /**
   * `pathPrice` as a double (for a first, conservative test), without building the Decimal when it
   * is still the last candle's close and that candle holds it as a double (a CSV column).
   */
  pathPriceNumber(): number | undefined {
    if (this.path !== undefined) return this.path.toNumber();
    const candle = this.candle;
    if (candle === undefined) return undefined;
    return candle instanceof ColumnCandle ? candle.value(CLOSE) : candle.close.toNumber();
  }

  /** Volume of the last applied candle: what orders arriving before the next candle may take a share of. */
  get lastVolume(): Decimal | undefined {
    if (this.volume === undefined && this.candle !== undefined) this.volume = this.candle.volume;
    return this.volume;
  }

  /** After a candle: last price and path price are its close, the volume its volume (read lazily). */
  settle(candle: SettledCandle): void {
    this.candle = candle;
    this.last = undefined;
    this.path = undefined;
    this.volume = undefined;
    this.arrival = undefined;
  }

  /** Before one of the two prices is set apart from the candle, the other keeps the candle's close. */
  private settleLast(): void {
    if (this.last === undefined && this.candle !== undefined) this.last = this.candle.close;
  }

  private settlePath(): void {
    if (this.path === undefined && this.candle !== undefined) this.path = this.candle.close;
  }
}

import { candleOpenTime, nextCandleOpenTime, type Candle, type Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { CLOSE, ColumnCandle, HIGH, LOW, OPEN, VOLUME, type CandleColumns } from '../../candle-files/csv-columns';

interface Bucket {
  readonly kind: 'decimal';
  time: number;
  end: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  volumeMoney: Decimal;
}

/** A bucket of consecutive rows of one CandleColumns: indexes only, compared as (exact) doubles. */
interface RowBucket {
  readonly kind: 'rows';
  time: number;
  end: number;
  readonly columns: CandleColumns;
  readonly first: number;
  last: number;
  high: number;
  low: number;
}

/**
 * Builds a strategy's candles (e.g. 1h) from the data's candles (e.g. 1m), the way the simulated
 * exchange's kline endpoint aggregates them for paper mode: first open, max high, min low, last
 * close, summed volumes. A bucket is CLOSED (handed to the strategy) when a data candle ending at the
 * bucket's end arrives, or, across a data gap, when a data candle of a later bucket shows up; its
 * close instant is then the bucket's end, not the later candle's. Gaps stay gaps: an empty bucket is
 * never invented. When both intervals are equal, candles pass through unchanged (no allocation).
 * Candles read from CSV columns (ColumnCandle) are aggregated by row index without building a Decimal
 * per data candle; the strategy candle builds its Decimals when read (same values).
 */
export class CandleAggregator {
  private bucket: Bucket | RowBucket | undefined;
  private readonly passThrough: boolean;

  get isPassThrough(): boolean {
    return this.passThrough;
  }

  constructor(readonly interval: Interval, dataInterval: Interval) {
    this.passThrough = interval === dataInterval;
  }

  /** A bucket left open by a gap, closed by now: `time` is the open time of the next data candle. */
  takeClosedBefore(time: number): { candle: Candle; closeTime: number } | undefined {
    const b = this.bucket;
    if (b === undefined || b.end > time) return undefined;
    this.bucket = undefined;
    return { candle: b.kind === 'rows' ? new RowsCandle(b) : toCandle(b), closeTime: b.end };
  }

  /** Adds a data candle ending at `closeTime`; returns the strategy candle it completes, if any. */
  push(candle: Candle, closeTime: number): Candle | undefined {
    if (this.passThrough) return candle;
    const time = candleOpenTime(this.interval, candle.time);
    if (candle instanceof ColumnCandle) {
      const rows = this.pushRow(candle, time, closeTime);
      if (rows !== null) return rows;
    }
    let b = this.bucket;
    if (b !== undefined && b.kind === 'rows') b = this.bucket = decimalBucket(b);
    if (b === undefined || b.time !== time) {
      b = {
        kind: 'decimal', time, end: nextCandleOpenTime(this.interval, time), open: candle.open, high: candle.high, low: candle.low,
        close: candle.close, volume: candle.volume, volumeMoney: candle.volumeMoney,
      };
      this.bucket = b;
    } else {
      if (candle.high.greaterThan(b.high)) b.high = candle.high;
      if (candle.low.lessThan(b.low)) b.low = candle.low;
      b.close = candle.close;
      b.volume = b.volume.plus(candle.volume);
      b.volumeMoney = b.volumeMoney.plus(candle.volumeMoney);
    }
    if (closeTime < b.end) return undefined;
    this.bucket = undefined;
    return toCandle(b);
  }

  /** The row path; null when the open bucket is not made of the rows just before this one (then the Decimal path). */
  private pushRow(candle: ColumnCandle, time: number, closeTime: number): Candle | undefined | null {
    const { columns, index } = candle;
    let b = this.bucket;
    const high = candle.value(HIGH);
    const low = candle.value(LOW);
    if (b === undefined || b.time !== time) {
      b = { kind: 'rows', time, end: nextCandleOpenTime(this.interval, time), columns, first: index, last: index, high: index, low: index };
      this.bucket = b;
    } else if (b.kind === 'rows' && b.columns === columns && b.last === index - 1) {
      if (high > (columns.values[HIGH] as Float64Array)[b.high]!) b.high = index;
      if (low < (columns.values[LOW] as Float64Array)[b.low]!) b.low = index;
      b.last = index;
    } else {
      return null;
    }
    if (closeTime < b.end) return undefined;
    this.bucket = undefined;
    return new RowsCandle(b);
  }
}

/** A strategy candle over rows first..last of CandleColumns; each Decimal built on first read, then kept. */
class RowsCandle implements Candle {
  readonly time: number;
  private cache: Partial<Record<'open' | 'high' | 'low' | 'close' | 'volume' | 'volumeMoney', Decimal>> = {};

  constructor(private readonly b: RowBucket) {
    this.time = b.time;
  }

  get open(): Decimal { return (this.cache.open ??= this.b.columns.decimal(OPEN, this.b.first)); }
  get high(): Decimal { return (this.cache.high ??= this.b.columns.decimal(HIGH, this.b.high)); }
  get low(): Decimal { return (this.cache.low ??= this.b.columns.decimal(LOW, this.b.low)); }
  get close(): Decimal { return (this.cache.close ??= this.b.columns.decimal(CLOSE, this.b.last)); }

  get volume(): Decimal {
    if (this.cache.volume === undefined) {
      let sum = new Decimal(0);
      for (let i = this.b.first; i <= this.b.last; i++) sum = sum.plus(this.b.columns.decimal(VOLUME, i));
      this.cache.volume = sum;
    }
    return this.cache.volume;
  }

  get volumeMoney(): Decimal {
    if (this.cache.volumeMoney === undefined) {
      let sum = new Decimal(0);
      for (let i = this.b.first; i <= this.b.last; i++) sum = sum.plus(this.b.columns.decimal(VOLUME, i).times(this.b.columns.decimal(CLOSE, i)));
      this.cache.volumeMoney = sum.toDecimalPlaces(8, Decimal.ROUND_HALF_UP);
    }
    return this.cache.volumeMoney;
  }
}

/** A row bucket as a Decimal bucket, when a candle from elsewhere joins it. */
function decimalBucket(b: RowBucket): Bucket {
  let volume = new Decimal(0);
  let volumeMoney = new Decimal(0);
  for (let i = b.first; i <= b.last; i++) {
    const v = b.columns.decimal(VOLUME, i);
    volume = volume.plus(v);
    volumeMoney = volumeMoney.plus(v.times(b.columns.decimal(CLOSE, i)));
  }
  return {
    kind: 'decimal', time: b.time, end: b.end, open: b.columns.decimal(OPEN, b.first), high: b.columns.decimal(HIGH, b.high),
    low: b.columns.decimal(LOW, b.low), close: b.columns.decimal(CLOSE, b.last), volume, volumeMoney,
  };
}

function toCandle(b: Bucket): Candle {
  // Money volume to 8 decimals, as the kline endpoint reports it.
  return { time: b.time, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, volumeMoney: b.volumeMoney.toDecimalPlaces(8, Decimal.ROUND_HALF_UP) };
}

import { candleOpenTime, nextCandleOpenTime, type Candle, type Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';

interface Bucket {
  time: number;
  end: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  volumeMoney: Decimal;
}

/**
 * Builds a strategy's candles (e.g. 1h) from the data's candles (e.g. 1m), the way the simulated
 * exchange's kline endpoint aggregates them for paper mode: first open, max high, min low, last
 * close, summed volumes. A bucket is CLOSED (handed to the strategy) when a data candle ending at the
 * bucket's end arrives, or, across a data gap, when a data candle of a later bucket shows up; its
 * close instant is then the bucket's end, not the later candle's. Gaps stay gaps: an empty bucket is
 * never invented. When both intervals are equal, candles pass through unchanged (no allocation).
 */
export class CandleAggregator {
  private bucket: Bucket | undefined;
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
    return { candle: toCandle(b), closeTime: b.end };
  }

  /** Adds a data candle ending at `closeTime`; returns the strategy candle it completes, if any. */
  push(candle: Candle, closeTime: number): Candle | undefined {
    if (this.passThrough) return candle;
    const time = candleOpenTime(this.interval, candle.time);
    let b = this.bucket;
    if (b === undefined || b.time !== time) {
      b = {
        time, end: nextCandleOpenTime(this.interval, time), open: candle.open, high: candle.high, low: candle.low,
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
}

function toCandle(b: Bucket): Candle {
  // Money volume to 8 decimals, as the kline endpoint reports it.
  return { time: b.time, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, volumeMoney: b.volumeMoney.toDecimalPlaces(8, Decimal.ROUND_HALF_UP) };
}

import { candleOpenTime, nextCandleOpenTime, type Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import type { MarketInfo } from '../../domain/market';
import { rowToCandle } from '../../candle-files/csv-candles';
import { partialAlongPath } from '../engine/price-path';
import { MINUTE, type CandleSource } from './candle-source';

/** A kline row on the wire: [time, open, CLOSE, HIGH, LOW, volume stock, volume money]. */
export type WireKline = [number, string, string, string, string, string, string];

export interface KlineQuery {
  readonly interval?: Interval | undefined;
  readonly start?: number | undefined;
  readonly end?: number | undefined;
  readonly limit?: number | undefined;
}

/** Default period when both start and end are omitted (spec): minutes 1 day, hours 1 week, days/weeks 1 month, month 1 year. */
function defaultPeriodSeconds(interval: Interval): number {
  if (interval.endsWith('m')) return 86_400;
  if (interval.endsWith('h')) return 7 * 86_400;
  if (interval === '1M') return 365 * 86_400;
  return 30 * 86_400;
}

/**
 * The kline answer of the simulated exchange, built from the 1m source rows up to the market clock:
 * candles before the clock are history; the candle holding the clock comes last with its partial
 * values so far (its current 1m candle taken part of the way along its price path). Larger intervals
 * are aggregated from 1m rows (first open, max high, min low, last close, summed volumes; money volume
 * estimated as volume x close per minute). Gaps stay gaps.
 *
 * `start` default: one week before now (or, when end is omitted too, the interval's default period before now);
 * `end` default: now. With an explicit start the first `limit` candles are returned, otherwise the
 * latest `limit`, so "give me the last N candles" works without computing a start.
 */
export function buildKlines(source: CandleSource, market: MarketInfo, now: number, query: KlineQuery): WireKline[] {
  const interval = query.interval ?? '1h';
  const limit = query.limit ?? 1440;
  const end = Math.min(query.end ?? Math.floor(now), Math.floor(now));
  const start = query.start ?? (query.end === undefined ? end - defaultPeriodSeconds(interval) : Math.floor(now) - 7 * 86_400);
  if (start > end) return [];
  const from = candleOpenTime(interval, start) < start ? nextCandleOpenTime(interval, candleOpenTime(interval, start)) : start;
  const alignedFrom = candleOpenTime(interval, from);
  const rows = source.rowsBetween(alignedFrom, Math.min(nextCandleOpenTime(interval, candleOpenTime(interval, end)), Math.floor(now) + 1));

  const out: WireKline[] = [];
  let bucket: { time: number; open: Decimal; high: Decimal; low: Decimal; close: Decimal; volume: Decimal; money: Decimal } | undefined;
  const flush = () => {
    if (bucket === undefined) return;
    const p = market.moneyPrec;
    out.push([bucket.time, bucket.open.toFixed(p), bucket.close.toFixed(p), bucket.high.toFixed(p), bucket.low.toFixed(p),
      bucket.volume.toString(), bucket.money.toDecimalPlaces(8).toString()]);
    bucket = undefined;
  };
  for (const row of rows) {
    const time = candleOpenTime(interval, row.time);
    if (time < from || time > end) continue;
    let candle = rowToCandle(row);
    if (row.time + MINUTE > now) {
      // The 1m candle holding the clock: only the part of its path walked so far.
      const f = (now - row.time) / MINUTE;
      const partial = partialAlongPath(candle, f);
      const volume = candle.volume.times(f).toDecimalPlaces(8);
      candle = { ...candle, high: partial.high, low: partial.low, close: partial.price, volume, volumeMoney: volume.times(partial.price) };
    }
    if (bucket !== undefined && bucket.time !== time) flush();
    if (bucket === undefined) {
      bucket = { time, open: candle.open, high: candle.high, low: candle.low, close: candle.close, volume: candle.volume, money: candle.volumeMoney };
    } else {
      bucket.high = Decimal.max(bucket.high, candle.high);
      bucket.low = Decimal.min(bucket.low, candle.low);
      bucket.close = candle.close;
      bucket.volume = bucket.volume.plus(candle.volume);
      bucket.money = bucket.money.plus(candle.volumeMoney);
    }
  }
  flush();
  return query.start === undefined ? out.slice(-limit) : out.slice(0, limit);
}

import { SMA, EMA, RSI } from 'technicalindicators';
import { Sma, Ema, Rsi, Highest, Lowest, Cross } from '../../../src/strategy/indicators';
import { CandleRing, decimalToNumber } from '../../../src/strategy/candle-series';
import { Decimal } from '../../../src/domain/decimal';
import { CandleColumns } from '../../../src/candle-files/csv-columns';
import { readCandles } from './candle-fixture';

const candles = readCandles('btc_usdt-1h-binance-2017-2022.csv', 600);
const closes = candles.map((c) => Number(c.close.toString()));

function feed(ind: { nextValue(x: number): number | undefined }, values: number[]): number[] {
  const out: number[] = [];
  for (const v of values) {
    const r = ind.nextValue(v);
    if (r !== undefined) out.push(r);
  }
  return out;
}

describe('incremental indicators match technicalindicators on real closes', () => {
  test('SMA', () => {
    const ref = SMA.calculate({ period: 20, values: closes });
    const mine = feed(new Sma(20), closes);
    expect(mine).toHaveLength(ref.length);
    mine.forEach((v, i) => expect(v).toBeCloseTo(ref[i]!, 6));
  });
  test('EMA', () => {
    const ref = EMA.calculate({ period: 12, values: closes });
    const mine = feed(new Ema(12), closes);
    expect(mine).toHaveLength(ref.length);
    mine.forEach((v, i) => expect(v).toBeCloseTo(ref[i]!, 6));
  });
  test('RSI (technicalindicators rounds to 2 decimals)', () => {
    const ref = RSI.calculate({ period: 14, values: closes });
    const mine = feed(new Rsi(14), closes);
    expect(mine).toHaveLength(ref.length);
    mine.forEach((v, i) => expect(Math.abs(v - ref[i]!)).toBeLessThanOrEqual(0.006));
  });
  test('Highest / Lowest over a rolling window', () => {
    const highs = candles.map((c) => Number(c.high.toString()));
    const h = feed(new Highest(20), highs);
    const l = feed(new Lowest(20), highs);
    expect(h).toHaveLength(highs.length - 19);
    h.forEach((v, i) => expect(v).toBe(Math.max(...highs.slice(i, i + 20))));
    l.forEach((v, i) => expect(v).toBe(Math.min(...highs.slice(i, i + 20))));
  });
  test('Cross reports only real crossings', () => {
    const c = new Cross();
    expect([c.next(1, 2), c.next(2, 2), c.next(3, 2), c.next(3, 2), c.next(2, 2), c.next(1, 2), c.next(undefined, 2)])
      .toEqual([undefined, undefined, 'up', undefined, undefined, 'down', undefined]);
  });
  test('periods must be positive integers', () => {
    expect(() => new Sma(0)).toThrow(RangeError);
  });
});

describe('CandleRing and decimalToNumber', () => {
  test('decimalToNumber equals Number(toString()) for the real candle prices', () => {
    for (const c of candles) for (const d of [c.open, c.high, c.low, c.close, c.volume]) expect(decimalToNumber(d)).toBe(Number(d.toString()));
    for (const s of ['0', '-1.5', '0.00000001', '123456789012.12345678', '1e-9', '99999999999999999999']) {
      // More than 15 significant digits: within an ulp or two of the correctly rounded float.
      const got = decimalToNumber(new Decimal(s));
      expect(Math.abs(got - Number(s))).toBeLessThanOrEqual(Math.abs(Number(s)) * 4e-16);
    }
  });
  test('ring keeps the newest capacity candles; at() follows Array.prototype.at', () => {
    const ring = new CandleRing(3);
    for (const c of candles.slice(0, 5)) ring.push(c);
    expect(ring.length).toBe(3);
    expect(ring.toArray().map((c) => c.time)).toEqual(candles.slice(2, 5).map((c) => c.time));
    expect(ring.at(-1)).toBe(candles[4]);
    expect(ring.close(0)).toBe(closes[2]);
    expect(ring.highs()).toEqual(candles.slice(2, 5).map((c) => Number(c.high.toString())));
    expect(() => ring.at(3)).toThrow(RangeError);
    expect(() => ring.at(-4)).toThrow(RangeError);
    ring.push(candles[5]!);
    expect(ring.closes()).toEqual(closes.slice(3, 6));
  });
  test('candles read from CSV columns give the same numbers as the same candles as Decimals', () => {
    const columns = new CandleColumns();
    for (const c of candles) columns.push(c.time, ...([c.open, c.high, c.low, c.close, c.volume].map((d) => Number(d.toString())) as [number, number, number, number, number]));
    const fromColumns = new CandleRing(50);
    const fromDecimals = new CandleRing(50);
    columns.candles().forEach((c, i) => {
      fromColumns.push(c);
      fromDecimals.push(candles[i]!);
      expect(fromColumns.close(-1)).toBe(fromDecimals.close(-1));
    });
    for (const read of ['opens', 'highs', 'lows', 'closes', 'volumes'] as const) expect(fromColumns[read]()).toEqual(fromDecimals[read]());
  });
});

import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import { CandleAggregator } from '../../../src/backtest/replay/candle-aggregator';

const H = 1_700_002_800;
const c = (time: number, o: string, h: string, l: string, cl: string, v = '2'): Candle => ({
  time, open: new Decimal(o), high: new Decimal(h), low: new Decimal(l), close: new Decimal(cl), volume: new Decimal(v), volumeMoney: new Decimal(v).times(cl),
});

test('5m from 1m: first open, max high, min low, last close, summed volumes; emitted on the closing minute', () => {
  const agg = new CandleAggregator('5m', '1m');
  const t = H;
  expect(agg.push(c(t, '10', '11', '9', '10'), t + 60)).toBeUndefined();
  expect(agg.push(c(t + 60, '10', '15', '10', '14'), t + 120)).toBeUndefined();
  expect(agg.push(c(t + 120, '14', '14', '8', '9'), t + 180)).toBeUndefined();
  expect(agg.push(c(t + 180, '9', '10', '9', '10'), t + 240)).toBeUndefined();
  const out = agg.push(c(t + 240, '10', '12', '10', '11'), t + 300)!;
  expect(out.time).toBe(t);
  expect([out.open, out.high, out.low, out.close, out.volume].map(String)).toEqual(['10', '15', '8', '11', '10']);
  expect(out.volumeMoney.toString()).toBe(String(2 * (10 + 14 + 9 + 10 + 11)));
});

test('a bucket cut short by a gap is taken when a later candle arrives, closing at its own end', () => {
  const agg = new CandleAggregator('5m', '1m');
  agg.push(c(H, '1', '2', '1', '2'), H + 60);
  expect(agg.takeClosedBefore(H + 240)).toBeUndefined(); // still inside the bucket
  const taken = agg.takeClosedBefore(H + 900)!;
  expect(taken).toMatchObject({ closeTime: H + 300 });
  expect(taken.candle.close.toString()).toBe('2');
  expect(agg.takeClosedBefore(H + 900)).toBeUndefined();
});

test('equal intervals pass candles through unchanged', () => {
  const agg = new CandleAggregator('1m', '1m');
  const one = c(H, '1', '1', '1', '1');
  expect(agg.push(one, H + 60)).toBe(one);
  expect(agg.isPassThrough).toBe(true);
});

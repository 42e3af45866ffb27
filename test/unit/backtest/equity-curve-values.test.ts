import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import { maxDrawdown } from '../../../src/backtest/report/metrics';
import { buildEquityCurve } from '../../../src/backtest/report/equity-curve';
import { readCsvColumns } from '../../../src/candle-files/csv-columns';
import { join } from 'node:path';
import { loadRealCandles, REAL_MARKETS, rhythmFills } from '../../fixtures/backtest/real-run';

/** The valuation spelled out with Decimals at every point: what the curve's exact values must equal. */
function plainCurve(candles: Record<string, Candle[]>, fills: ReturnType<typeof rhythmFills>, start: Decimal): Decimal[] {
  const times = [...new Set(Object.values(candles).flatMap((l) => l.map((c) => c.time)))].sort((a, b) => a - b);
  const base = new Map<string, Decimal>(Object.keys(candles).map((m) => [m, new Decimal(0)]));
  const price = new Map<string, Decimal>(Object.entries(candles).map(([m, l]) => [m, l[0]!.open]));
  let quote = start;
  const value = (): Decimal => [...base].reduce((s, [m, b]) => s.plus(b.times(price.get(m)!)), quote);
  const out = [value()];
  let f = 0;
  times.forEach((t, i) => {
    while (f < fills.length && (fills[f]!.time < t + 60 || i === times.length - 1)) {
      const x = fills[f++]!;
      const sign = x.side === 'buy' ? 1 : -1;
      base.set(x.market, base.get(x.market)!.plus(x.amount.times(sign)));
      quote = quote.minus(x.amount.times(x.price).times(sign)).minus(x.fee);
    }
    for (const [m, l] of Object.entries(candles)) {
      const c = l.find((k) => k.time === t);
      if (c) price.set(m, c.close);
    }
    out.push(value());
  });
  return out;
}

test('two real markets with a gap: exact equity at every point as Decimals, doubles within 1e-12, drawdown exact', async () => {
  const decimalCandles = await loadRealCandles();
  const columnCandles: Record<string, Candle[]> = {};
  for (const [m, spec] of Object.entries(REAL_MARKETS)) {
    columnCandles[m] = (await readCsvColumns(join(__dirname, '../../fixtures/backtest', spec.file))).columns.candles();
  }
  const fills = rhythmFills(decimalCandles);
  const start = new Decimal(10_000);
  const want = plainCurve(decimalCandles, fills, start);
  for (const candles of [decimalCandles, columnCandles]) {
    const curve = buildEquityCurve(fills, candles, { USDT: start }, 'USDT', '1m');
    expect(curve.map((p) => p.equity.toString())).toEqual(want.map(String));
    expect(curve.map((p) => p.equityText!())).toEqual(want.map(String));
    for (const p of curve) expect(Math.abs(p.value! - p.equity.toNumber())).toBeLessThan(1e-12 * p.equity.toNumber());
    // The largest fall, exactly, as a Decimal walk finds it.
    let peak = want[0]!;
    let fall = new Decimal(0);
    for (const e of want) {
      if (e.gt(peak)) peak = e;
      if (peak.minus(e).gt(fall)) fall = peak.minus(e);
    }
    expect(fall.gt(0)).toBe(true);
    expect(maxDrawdown(curve).amount.toString()).toBe(fall.toString());
  }
});

test('scaled decimals format as Decimal does', () => {
  const { addScaled, formatScaled, mulScaled, scaledOfText } = require('../../../src/backtest/report/scaled-decimal') as typeof import('../../../src/backtest/report/scaled-decimal');
  const cases: Array<[string, string]> = [['0', '0'], ['-0.5', '2'], ['47310.83', '0.002113'], ['0.00000001', '0.1'], ['-12.340', '1000'], ['9899.71093624517', '-3']];
  for (const [a, b] of cases) {
    const x = scaledOfText(a)!;
    const y = scaledOfText(b)!;
    expect(formatScaled(addScaled(x, y))).toBe(new Decimal(a).plus(b).toString());
    expect(formatScaled(mulScaled(x, y))).toBe(new Decimal(a).times(b).toString());
    expect(formatScaled(x)).toBe(new Decimal(a).toString());
  }
  expect(scaledOfText('1e-7')).toBeUndefined();
});

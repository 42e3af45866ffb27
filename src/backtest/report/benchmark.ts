import { intervalSeconds } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { decimalToNumber } from '../../strategy/candle-series';
import { closeNumber } from '../../candle-files/csv-columns';
import type { Candle } from '../../domain/candle';
import type { Benchmark, BacktestRun } from './types';
import { fullCurveOf } from './equity-series';

const NONE: Benchmark = { equity: [], endEquity: null, returnPct: null, maxDrawdownPct: null, description: 'not priced: no equity' };

/**
 * Buy and hold over the run's own candles: the starting equity split equally over the markets,
 * each part bought at the market's first open paying its taker fee (from the run's settings; 0
 * without them), then held. Valued like the run's equity curve (point 0 at the first opens, then at
 * each candle close instant with the latest close per market), so the two curves line up.
 * The series is in floats (a chart and ratios); the end value is exact.
 */
export function buyAndHold(run: BacktestRun): Benchmark {
  const curve = fullCurveOf(run);
  const start = curve.length === 0 ? undefined : curve.point(0);
  const markets = Object.keys(run.candles).filter((m) => (run.candles[m]?.length ?? 0) > 0);
  if (start === undefined || markets.length === 0 || start.equity.lte(0)) return NONE;
  const fees = new Map((run.context?.settings.fees ?? []).map((f) => [f.market, new Decimal(f.taker)]));
  const share = start.equity.dividedBy(markets.length);
  const books = markets.map((m) => {
    const candles = run.candles[m] ?? [];
    const first = candles[0] as (typeof candles)[number];
    const amount = share.times(new Decimal(1).minus(fees.get(m) ?? 0)).dividedBy(first.open);
    return { candles, next: 0, amount, amountF: amount.toNumber(), price: decimalToNumber(first.open) };
  });
  const step = intervalSeconds(run.interval);
  const equity: number[] = [];
  let peak = -Infinity;
  let maxDd = 0;
  // The drawdown over every point of the full curve; the series only at the points the report keeps.
  const reported = run.equity;
  let r = 0;
  for (let k = 0; k < curve.length; k++) {
    const time = curve.times[k] as number;
    for (const b of books) {
      // A candle's close counts once its close instant (open time + interval) is reached, as in the equity curve.
      while (b.next < b.candles.length && (b.candles[b.next] as { time: number }).time + step <= time) {
        b.price = closeNumber(b.candles[b.next] as Candle);
        b.next++;
      }
    }
    let value = 0;
    for (const b of books) value += b.amountF * b.price;
    if (r < reported.length && (reported[r] as { time: number }).time === time) {
      equity.push(value);
      r++;
    }
    if (value > peak) peak = value;
    if (peak > 0) maxDd = Math.max(maxDd, ((peak - value) / peak) * 100);
  }
  const endEquity = books.reduce((sum, b) => sum.plus(b.amount.times((b.candles[b.candles.length - 1] as { close: Decimal }).close)), new Decimal(0));
  const feeText = fees.size === 0 ? 'no fee' : `the taker fee (${[...new Set(fees.values())].map((f) => f.toString()).join(', ')})`;
  return {
    equity, endEquity,
    returnPct: endEquity.minus(start.equity).dividedBy(start.equity).times(100).toNumber(),
    maxDrawdownPct: maxDd,
    description: `buy and hold: the starting equity split equally over ${markets.join(', ')}, bought at the first open paying ${feeText}, held to the end`,
  };
}

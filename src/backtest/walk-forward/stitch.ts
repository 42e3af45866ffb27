import { Decimal } from '../../domain/decimal';
import type { Interval } from '../../domain/candle';
import { intervalSeconds } from '../../domain/candle';
import { cagrPct, maxDrawdown, periodReturns, sharpeRatio } from '../report/metrics';
import type { EquityPoint } from '../report/types';

/** The out-of-sample curve of a walk-forward and its numbers. */
export interface StitchedEquity {
  readonly equity: readonly EquityPoint[];
  readonly startEquity: Decimal;
  readonly endEquity: Decimal;
  readonly returnPct: number | null;
  readonly maxDrawdown: Decimal;
  readonly maxDrawdownPct: number;
  readonly sharpe: number | null;
  readonly cagrPct: number | null;
}

const SECONDS_PER_YEAR = 365 * 86_400;

/**
 * Chains the test windows' equity curves into one: each test run starts flat with the starting
 * balances, so its curve is scaled to start where the previous one ended (its returns compound).
 * Points are exact decimals; the first point of every later segment is dropped (it is the previous
 * segment's last value). Ratios as in the single-run report (Sharpe per candle of `interval`).
 */
export function stitchEquity(segments: readonly (readonly EquityPoint[])[], interval: Interval): StitchedEquity {
  const out: EquityPoint[] = [];
  let level: Decimal | undefined;
  for (const segment of segments) {
    const first = segment[0];
    if (first === undefined || first.equity.lte(0)) continue;
    const scale = level === undefined ? new Decimal(1) : level.dividedBy(first.equity);
    segment.forEach((p, i) => {
      if (i === 0 && level !== undefined) return;
      out.push({ time: p.time, equity: p.equity.times(scale) });
    });
    level = (out[out.length - 1] as EquityPoint).equity;
  }
  const start = out[0]?.equity ?? new Decimal(0);
  const end = out[out.length - 1]?.equity ?? start;
  const dd = maxDrawdown(out);
  const span = out.length === 0 ? 0 : (out[out.length - 1] as EquityPoint).time - (out[0] as EquityPoint).time;
  return {
    equity: out, startEquity: start, endEquity: end,
    returnPct: start.isZero() ? null : end.minus(start).dividedBy(start).times(100).toNumber(),
    maxDrawdown: dd.amount, maxDrawdownPct: dd.pct,
    sharpe: sharpeRatio(periodReturns(out), SECONDS_PER_YEAR / intervalSeconds(interval)),
    cagrPct: cagrPct(start, end, span),
  };
}

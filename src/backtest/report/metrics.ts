import { intervalSeconds } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import { buildRoundTrips, type RoundTrips } from './round-trips';
import { buyAndHold } from './benchmark';
import type { Benchmark, BacktestMetrics, BacktestResult, BacktestRun, EquityPoint, EquitySeries, OpenPosition, RoundTripTrade } from './types';
import { fullCurveOf, seriesOfPoints } from './equity-series';

export { buildRoundTrips } from './round-trips';
export type { RoundTrips } from './round-trips';

/** Every key of BacktestMetrics, in report order (report.json `metrics`; a test checks it is complete). */
export const METRIC_NAMES = [
  'startTime', 'endTime', 'candleCount', 'startEquity', 'endEquity', 'netPnl', 'returnPct', 'realizedPnl', 'totalFees',
  'maxDrawdown', 'maxDrawdownPct', 'tradeCount', 'winCount', 'lossCount', 'winRate', 'grossProfit', 'grossLoss',
  'profitFactor', 'averageTrade', 'bestTrade', 'worstTrade', 'averageTradeSeconds', 'sharpe', 'sortino', 'cagrPct', 'calmar', 'sqn',
  'exposure', 'benchmarkReturnPct', 'benchmarkMaxDrawdownPct',
] as const satisfies readonly (keyof BacktestMetrics)[];

/** Crypto markets trade around the clock: a year is 365 days of candles. */
const SECONDS_PER_YEAR = 365 * 86_400;

/** Matches the run's fills into trades, prices the buy-and-hold benchmark and computes every metric. Pure. */
export function analyseBacktest(run: BacktestRun): BacktestResult {
  const roundTrips = buildRoundTrips(run.fills);
  const benchmark = buyAndHold(run);
  return { run, ...roundTrips, benchmark, metrics: computeMetrics(run, roundTrips, benchmark) };
}

/**
 * Computes the report metrics of a run (see docs/backtest-report.md for each formula).
 * `roundTrips` defaults to `buildRoundTrips(run.fills)`.
 * Throws BacktestInputError when the equity curve is empty.
 */
export function computeMetrics(run: BacktestRun, roundTrips: RoundTrips = buildRoundTrips(run.fills), benchmark: Benchmark = buyAndHold(run)): BacktestMetrics {
  // Every figure from the full-resolution curve, whatever share of it the report writes.
  const curve = fullCurveOf(run);
  if (curve.length === 0) throw new BacktestInputError('equity: the equity curve needs at least one point', { field: 'equity' });
  const first = curve.point(0);
  const last = curve.point(curve.length - 1);
  const { trades, openPositions, fills } = roundTrips;
  const zero = new Decimal(0);
  const sum = (values: readonly Decimal[]): Decimal => values.reduce((a, b) => a.plus(b), zero);

  const pnls = trades.map((t) => t.netPnl);
  const wins = pnls.filter((p) => p.gt(0));
  const losses = pnls.filter((p) => p.lt(0));
  const grossProfit = sum(wins);
  const grossLoss = sum(losses).abs();
  const realizedPnl = sum(pnls);
  const netPnl = last.equity.minus(first.equity);
  const drawdown = maxDrawdownOf(curve);
  const returns = returnsOf(curve.values);
  const periodsPerYear = SECONDS_PER_YEAR / intervalSeconds(run.interval);
  const growth = cagrPct(first.equity, last.equity, last.time - first.time);

  return {
    startTime: first.time,
    endTime: last.time,
    candleCount: curve.length - 1,
    startEquity: first.equity,
    endEquity: last.equity,
    netPnl,
    returnPct: first.equity.isZero() ? null : netPnl.dividedBy(first.equity).times(100).toNumber(),
    realizedPnl,
    totalFees: sum(fills.map((f) => f.fee)),
    maxDrawdown: drawdown.amount,
    maxDrawdownPct: drawdown.pct,
    tradeCount: trades.length,
    winCount: wins.length,
    lossCount: losses.length,
    winRate: trades.length === 0 ? null : wins.length / trades.length,
    grossProfit,
    grossLoss,
    profitFactor: profitFactor(grossProfit, grossLoss),
    averageTrade: trades.length === 0 ? null : realizedPnl.dividedBy(trades.length),
    bestTrade: pnls.length === 0 ? null : Decimal.max(...pnls),
    worstTrade: pnls.length === 0 ? null : Decimal.min(...pnls),
    averageTradeSeconds: trades.length === 0 ? null : trades.reduce((a, t) => a + t.durationSeconds, 0) / trades.length,
    sharpe: sharpeRatio(returns, periodsPerYear),
    sortino: sortinoRatio(returns, periodsPerYear),
    cagrPct: growth,
    calmar: growth === null || drawdown.pct === 0 ? null : growth / drawdown.pct,
    sqn: systemQuality(pnls),
    exposure: exposure(trades, openPositions, first.time, last.time),
    benchmarkReturnPct: benchmark.returnPct,
    benchmarkMaxDrawdownPct: benchmark.maxDrawdownPct,
  };
}

/**
 * grossProfit / grossLoss. With no losing trade the ratio is unbounded: Infinity if anything was
 * won, null (undefined) if there were no winning and no losing trades at all.
 */
export function profitFactor(grossProfit: Decimal, grossLoss: Decimal): number | null {
  if (grossLoss.isZero()) return grossProfit.isZero() ? null : Infinity;
  return grossProfit.dividedBy(grossLoss).toNumber();
}

/**
 * Largest peak-to-trough fall. `amount` is the largest absolute fall (quote); `pct` the largest
 * fall relative to its running peak, in percent. They can come from different peaks.
 */
export function maxDrawdown(equity: readonly EquityPoint[]): { amount: Decimal; pct: number } {
  return maxDrawdownOf(seriesOfPoints(equity));
}

/** `maxDrawdown` of a series: located on its doubles, the amount exact from the two points found. */
export function maxDrawdownOf(curve: EquitySeries): { amount: Decimal; pct: number } {
  // Doubles of the curve carry ~15 significant digits, so only two falls equal to ~1e-12 of the
  // equity could be told apart differently.
  const x = drawdownExtremes(curve.values);
  const amount = x.from < 0 ? new Decimal(0) : curve.point(x.from).equity.minus(curve.point(x.to).equity);
  return { amount: amount.isNegative() ? new Decimal(0) : amount, pct: x.pct };
}

/** Where the drawdowns are: the peak and trough (indices) of the largest fall and of the largest fall in percent; -1 when none. */
export interface DrawdownExtremes {
  readonly from: number;
  readonly to: number;
  readonly pct: number;
  readonly pctFrom: number;
  readonly pctTo: number;
}

export function drawdownExtremes(values: ArrayLike<number>): DrawdownExtremes {
  let peak = -Infinity;
  let peakAt = -1;
  let fallF = 0;
  let from = -1;
  let to = -1;
  let pct = 0;
  let pctFrom = -1;
  let pctTo = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (v > peak) {
      peak = v;
      peakAt = i;
    }
    const fall = peak - v;
    if (fall > fallF) {
      fallF = fall;
      from = peakAt;
      to = i;
    }
    if (peak > 0 && fall > 0) {
      const p = (fall / peak) * 100;
      if (p > pct) {
        pct = p;
        pctFrom = peakAt;
        pctTo = i;
      }
    }
  }
  return { from, to, pct, pctFrom, pctTo };
}

/** A point's equity as a double: the one the curve computed, else converted. */
export function equityValue(p: EquityPoint): number {
  return p.value ?? p.equity.toNumber();
}

/**
 * Simple returns r_i = E_i / E_{i-1} − 1 per equity sample, as floats (they only feed the
 * Sharpe/Sortino ratios). A step from a non-positive equity has no return and is skipped.
 */
export function periodReturns(equity: readonly EquityPoint[]): number[] {
  return returnsOf(equity.map(equityValue));
}

function returnsOf(values: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1] as number;
    if (prev <= 0) continue;
    out.push((values[i] as number) / prev - 1);
  }
  return out;
}

/**
 * Annualised Sharpe ratio with risk-free rate 0:
 *   Sharpe = mean(r) / stdev(r) × √P
 * where r are the per-candle returns, stdev is the sample standard deviation (n − 1) and
 * P = 365 × 86400 / interval seconds is the number of candles per year.
 * Null with fewer than 2 returns or a zero deviation (a flat curve has no defined Sharpe).
 */
export function sharpeRatio(returns: readonly number[], periodsPerYear: number): number | null {
  if (returns.length < 2) return null;
  const mean = average(returns);
  let squares = 0;
  for (let i = 0; i < returns.length; i++) squares += ((returns[i] as number) - mean) ** 2;
  const variance = squares / (returns.length - 1);
  if (variance === 0) return null;
  return (mean / Math.sqrt(variance)) * Math.sqrt(periodsPerYear);
}

/**
 * Annualised Sortino ratio with risk-free rate and target 0:
 *   Sortino = mean(r) / DD × √P,   DD = √( Σ min(r_i, 0)² / n )
 * (downside deviation over all n periods, Sortino & Price). Null with fewer than 2 returns or no
 * negative return (DD = 0).
 */
export function sortinoRatio(returns: readonly number[], periodsPerYear: number): number | null {
  if (returns.length < 2) return null;
  let squares = 0;
  for (let i = 0; i < returns.length; i++) squares += Math.min(returns[i] as number, 0) ** 2;
  const downside = Math.sqrt(squares / returns.length);
  if (downside === 0) return null;
  return (average(returns) / downside) * Math.sqrt(periodsPerYear);
}

/**
 * Share of [start, end] during which any market had a non-zero position: the union of
 * [entryTime, exitTime] of closed trades and [entryTime, end] of open positions, clipped to the run.
 */
export function exposure(trades: readonly RoundTripTrade[], open: readonly OpenPosition[], start: number, end: number): number {
  if (end <= start) return 0;
  const spans = [
    ...trades.map((t) => [t.entryTime, t.exitTime] as const),
    ...open.map((p) => [p.entryTime, end] as const),
  ]
    .map(([a, b]) => [Math.max(a, start), Math.min(b, end)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let cursor = start;
  for (const [a, b] of spans) {
    const from = Math.max(a, cursor);
    if (b > from) covered += b - from;
    cursor = Math.max(cursor, b);
  }
  return covered / (end - start);
}

/**
 * Compound annual growth rate in percent: ((end / start)^(year / span) − 1) × 100 with a 365-day
 * year. Null when the span is 0 or an equity is not positive. A short run annualises its return
 * a lot (a month at +1 % is about +12.7 %/year): read it with the span.
 */
export function cagrPct(start: Decimal, end: Decimal, spanSeconds: number): number | null {
  if (spanSeconds <= 0 || start.lte(0) || end.lte(0)) return null;
  return (Math.pow(end.dividedBy(start).toNumber(), SECONDS_PER_YEAR / spanSeconds) - 1) * 100;
}

/**
 * Van Tharp's System Quality Number over the trades' net PnL: √N × mean / sample stdev (N − 1).
 * Null with fewer than 2 trades or no spread. (Tharp uses R-multiples; with no stop distance known
 * per trade, the PnL is the common stand-in, as in backtrader's SQN analyzer.)
 */
export function systemQuality(pnls: readonly Decimal[]): number | null {
  if (pnls.length < 2) return null;
  const xs = pnls.map((p) => p.toNumber());
  const mean = average(xs);
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return sd === 0 ? null : (Math.sqrt(xs.length) * mean) / sd;
}

// Loops, not reduce: over a year's 525,600 returns a reduce callback boxed every partial sum.
function average(values: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] as number;
  return sum / values.length;
}

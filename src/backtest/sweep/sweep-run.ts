import { Decimal } from '../../domain/decimal';
import { loadBacktestData, runBacktest, runFailed, sliceBacktestData, type BacktestData, type StrategyCache } from '../run-backtest';
import { fillModelOption, parseIntervalOption, textRecordToDecimal } from '../options';
import { fullCurveOf, type BacktestMetrics, type BacktestRun } from '../report';
import { outOfMoney } from '../report/out-of-money';
import type { SweepJob, SweepRunResult, SweepSetup } from './sweep-types';

/** Loads the candles of a sweep once per worker (every run of that worker reuses them). */
export function loadSweepData(setup: SweepSetup): Promise<BacktestData> {
  return loadBacktestData(setup.data, { from: setup.from, to: setup.to });
}

/** One grid point: a full backtest in memory; the metrics flattened to JSON-safe values. */
export async function runSweepJob(setup: SweepSetup, data: BacktestData, job: SweepJob, cache?: StrategyCache): Promise<SweepRunResult> {
  try {
    const window = job.from === undefined && job.to === undefined ? data : sliceBacktestData(data, job.from, job.to, job.tradeFrom);
    const outcome = await runBacktest({
      strategy: setup.strategy,
      strategiesDir: setup.strategiesDir,
      params: { ...setup.baseParams, ...job.params },
      interval: setup.interval === undefined ? undefined : parseIntervalOption(setup.interval, '--interval'),
      balances: textRecordToDecimal(setup.balances),
      risk: setup.risk,
      collateral: setup.collateral,
      collateralBalances: setup.collateralBalances === undefined ? undefined : textRecordToDecimal(setup.collateralBalances),
      fillModel: fillModelOption(setup.fill ?? {}),
    }, window, cache);
    const orders = outcome.result.run.context?.orders;
    const health = outcome.replay.health;
    const broke = outOfMoney(outcome.replay.orders);
    const sum = (f: (h: (typeof health)[number]) => number): number => health.reduce((a, h) => a + f(h), 0);
    return {
      index: job.index, params: job.params, metrics: flattenMetrics(outcome.result.metrics),
      orders: { placed: orders?.placed ?? 0, denied: orders?.denied ?? 0, rejected: orders?.rejected ?? 0 },
      fills: outcome.replay.fills.length,
      ...(broke === undefined ? {} : { outOfMoney: broke }),
      strategy: { errors: sum((h) => h.errors), overruns: sum((h) => h.overruns), pauses: sum((h) => h.pauses), failed: runFailed(outcome) },
      ...(job.withEquity === true ? { equity: fullEquity(outcome.result.run) } : {}),
    };
  } catch (err) {
    return { index: job.index, params: job.params, error: (err as Error).message };
  }
}

/** Every point of the run's curve (a walk-forward stitches test windows from them and computes its figures on them). */
function fullEquity(run: BacktestRun): (readonly [number, string])[] {
  const curve = fullCurveOf(run);
  const out: (readonly [number, string])[] = [];
  for (let k = 0; k < curve.length; k++) {
    const p = curve.point(k);
    out.push([p.time, p.equityText === undefined ? p.equity.toString() : p.equityText()]);
  }
  return out;
}

export function flattenMetrics(m: BacktestMetrics): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(m)) {
    if (value instanceof Decimal) out[key] = value.toString();
    else if (typeof value === 'number') out[key] = Number.isFinite(value) ? value : String(value);
    else out[key] = value === null ? null : String(value);
  }
  return out;
}

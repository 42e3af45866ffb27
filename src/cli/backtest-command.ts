import * as path from 'node:path';
import type { Command } from 'commander';
import { BacktestInputError, TradebotError } from '../domain/errors';
import { parseDataSpec } from '../backtest/data/market-data';
import { fillModelOption, parseBalances, parseIntervalOption, parseJsonObject, parseRiskOption, parseTime } from '../backtest/options';
import type { BacktestSpec } from '../backtest/run-backtest';
import type { CollateralMode } from '../simulator/engine/sim-engine';
import type { BacktestCliOptions, BacktestRequest } from './backtest-request';

/**
 * `tradebot backtest`: one strategy over recorded candles through the same host, risk checks,
 * rounding and fill model as paper trading (no HTTP, no Redis), then report.json + report.html +
 * backtest.log (ctx.log). With `--sweep` it runs a parameter grid on worker threads and writes a
 * ranked table; with `--walk-forward` it sweeps each train window and runs the best parameters on
 * the next test window. Exits 1 on bad input, and when the strategy failed during the run unless
 * `--allow-strategy-errors`.
 */
export function registerBacktestCommand(program: Command): void {
  program
    .command('backtest')
    .description('run a strategy over candle CSV files and write a report (or a parameter sweep with --sweep)')
    .requiredOption('--strategy <name>', 'strategy name (as defined in its module)')
    .requiredOption('--data <market=file>', 'candle CSV of a market, e.g. BTC_USDT=btc.csv (repeatable)', collect, [])
    .option('--from <time>', 'first candle (Unix seconds or ISO date, UTC)')
    .option('--to <time>', 'end, exclusive (Unix seconds or ISO date, UTC)')
    .option('--params <json>', 'strategy parameter overrides, a JSON object (unknown names are refused)')
    .option('--balance <cur=amount>', 'starting balance (repeatable)', collect, [])
    .option('--interval <interval>', "the strategy's candle interval (default: the strategy's own)")
    .option('--out <dir>', 'report directory (report.json, report.html, backtest.log; sweep.json/.csv; walk-forward.json/.html)', 'backtest-report')
    .option('--strategies <dir>', 'strategy module folder', 'strategies')
    .option('--risk <json>', 'the daemon\'s risk config section, e.g. {"dailyLossLimit":"200","defaults":{"priceBand":"0.05"}}')
    .option('--sweep <json>', 'parameter grid, e.g. {"fast":[5,10,20],"slow":[30,50]}')
    .option('--rank-by <metric>', 'sweep ranking metric, a report metric name (default netPnl)')
    .option('--workers <n>', 'sweep worker threads (default: number of cores; 0 = in this thread)')
    .option('--walk-forward <json>', 'walk-forward windows with --sweep, e.g. {"train":"14d","test":"7d"} (step: test)')
    .option('--queue', 'run the --sweep / --walk-forward on the BullMQ queue at TRADEBOT_QUEUE_REDIS_URL (start workers with "tradebot worker")')
    .option('--chunk-size <n>', 'with --queue: parameter sets per queue job (default 8)')
    .option('--collateral <mode>', "which balance OCOs use: 'separate' (margin on the collateral balance, as live) or 'unified' (OCO legs trade the trading balance)", 'separate')
    .option('--collateral-balance <cur=amount>', 'starting collateral balance, where OCOs hold their margin (repeatable; default none)', collect, [])
    .option('--fill-volume-share <share>', "share of each candle's volume orders may fill, in (0, 1], or 'off' for complete fills (default 0.1)")
    .option('--oco-cancel-on <when>', "when an OCO leg cancels the other: 'execution' (as live) or 'trigger'", 'execution')
    .option('--full-curve', 'report.json keeps every point of the equity curve (default: the strategy\'s interval, every fill\'s point and the drawdown extremes)')
    .option('--allow-strategy-errors', 'exit 0 even when the strategy threw, returned invalid intents, overran its time budget or was paused')
    .action(async (opts: BacktestCliOptions) => {
      try {
        const failed = await runBacktestCommand(opts);
        if (failed) process.exitCode = 1;
      } catch (err) {
        process.stderr.write(`${err instanceof TradebotError ? `${err.code}: ` : ''}${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--collateral`: FILL-MODEL.md "Collateral"; default 'separate', which is what the live exchange does. */
export function parseCollateral(value: string | undefined): CollateralMode {
  if (value === undefined || value === 'separate') return 'separate';
  if (value === 'unified') return 'unified';
  throw new BacktestInputError(`--collateral must be 'separate' or 'unified', got '${value}'`, { field: 'collateral' });
}

/** The single-run spec the options describe (parameters, balances, risk limits, collateral mode). */
export function backtestSpecOf(opts: BacktestCliOptions): BacktestSpec {
  return {
    strategy: opts.strategy, strategiesDir: path.resolve(opts.strategies),
    params: opts.params === undefined ? {} : parseJsonObject(opts.params, '--params'),
    interval: opts.interval === undefined ? undefined : parseIntervalOption(opts.interval, '--interval'),
    balances: parseBalances(opts.balance.length > 0 ? opts.balance : ['USDT=10000']),
    risk: parseRiskOption(opts.risk),
    collateral: parseCollateral(opts.collateral),
    collateralBalances: parseBalances(opts.collateralBalance, '--collateral-balance'),
    fillModel: fillModelOption(fillText(opts)),
  };
}

function fillText(opts: BacktestCliOptions): { volumeShare?: string; ocoCancelOn?: string } {
  return { ...(opts.fillVolumeShare === undefined ? {} : { volumeShare: opts.fillVolumeShare }), ...(opts.ocoCancelOn === undefined ? {} : { ocoCancelOn: opts.ocoCancelOn }) };
}

export function backtestRequestOf(opts: BacktestCliOptions): BacktestRequest {
  return {
    spec: backtestSpecOf(opts),
    data: opts.data.map(parseDataSpec),
    from: opts.from === undefined ? undefined : parseTime(opts.from, '--from'),
    to: opts.to === undefined ? undefined : parseTime(opts.to, '--to'),
    out: opts.out,
    allowStrategyErrors: opts.allowStrategyErrors === true,
    fullCurve: opts.fullCurve === true,
  };
}

/** Runs what the options ask for; true when the run failed (the strategy failed, a sweep run errored). */
async function runBacktestCommand(opts: BacktestCliOptions): Promise<boolean> {
  const request = backtestRequestOf(opts);
  if (opts.walkForward !== undefined || opts.sweep !== undefined) {
    if (opts.fullCurve === true) throw new BacktestInputError('--full-curve only applies to a single run (a sweep writes no equity curve)', { field: 'full-curve' });
    const { runSweepCommand } = require('./backtest-sweep-command') as typeof import('./backtest-sweep-command');
    return runSweepCommand(request, opts);
  }
  if (opts.workers !== undefined || opts.rankBy !== undefined) {
    throw new BacktestInputError('--workers and --rank-by only apply to --sweep / --walk-forward', { field: opts.workers !== undefined ? 'workers' : 'rank-by' });
  }
  if (opts.queue === true || opts.chunkSize !== undefined) {
    throw new BacktestInputError('--queue and --chunk-size only apply to --sweep / --walk-forward', { field: opts.queue === true ? 'queue' : 'chunk-size' });
  }
  const { runSingleBacktest } = require('./backtest-single-command') as typeof import('./backtest-single-command');
  return runSingleBacktest(request);
}

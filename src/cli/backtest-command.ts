import * as path from 'node:path';
import type { Command } from 'commander';
import { BacktestInputError, TradebotError } from '../domain/errors';
import { parseDataSpec } from '../backtest/data/market-data';
import {
  decimalRecordToText, fillModelOption, parseBalances, parseIntervalOption, parseJsonObject, parseRiskLimits, parseTime,
} from '../backtest/options';
import { writeReport } from '../backtest/report';
import { loadBacktestData, runBacktest, type BacktestSpec } from '../backtest/run-backtest';
import type { CollateralMode } from '../simulator/engine/sim-engine';
import { formatSweepTable, rankResults, runSweep } from '../backtest/sweep/run-sweep';
import { formatSummary } from '../backtest/summary';

export interface BacktestCliOptions {
  strategy: string;
  data: string[];
  from?: string;
  to?: string;
  params?: string;
  balance: string[];
  interval?: string;
  out: string;
  strategies: string;
  risk?: string;
  sweep?: string;
  rankBy: string;
  workers?: string;
  collateral?: string;
  collateralBalance: string[];
  fillVolumeShare?: string;
  ocoCancelOn?: string;
}

/**
 * `tradebot backtest`: one strategy over recorded candles through the same host, risk checks,
 * rounding and fill model as paper trading (no HTTP, no Redis), then report.json + report.html.
 * With `--sweep` it runs a parameter grid on worker threads and prints a ranked table instead.
 */
export function registerBacktestCommand(program: Command): void {
  program
    .command('backtest')
    .description('run a strategy over candle CSV files and write a report (or a parameter sweep with --sweep)')
    .requiredOption('--strategy <name>', 'strategy name (as defined in its module)')
    .requiredOption('--data <market=file>', 'candle CSV of a market, e.g. BTC_USDT=btc.csv (repeatable)', collect, [])
    .option('--from <time>', 'first candle (Unix seconds or ISO date, UTC)')
    .option('--to <time>', 'end, exclusive (Unix seconds or ISO date, UTC)')
    .option('--params <json>', 'strategy parameter overrides, a JSON object')
    .option('--balance <cur=amount>', 'starting balance (repeatable)', collect, [])
    .option('--interval <interval>', "the strategy's candle interval (default: the strategy's own)")
    .option('--out <dir>', 'report directory', 'backtest-report')
    .option('--strategies <dir>', 'strategy module folder', 'strategies')
    .option('--risk <json>', 'risk limits, e.g. {"dailyLossLimit":"200","priceBand":"0.05"}')
    .option('--sweep <json>', 'parameter grid, e.g. {"fast":[5,10,20],"slow":[30,50]}')
    .option('--rank-by <metric>', 'sweep ranking metric (report metric name)', 'netPnl')
    .option('--workers <n>', 'sweep worker threads (default: number of cores; 0 = in this thread)')
    .option('--collateral <mode>', "which balance OCOs use: 'separate' (margin on the collateral balance, as live) or 'unified' (OCO legs trade the trading balance)", 'separate')
    .option('--collateral-balance <cur=amount>', 'starting collateral balance, where OCOs hold their margin (repeatable; default none)', collect, [])
    .option('--fill-volume-share <share>', "share of each candle's volume orders may fill, in (0, 1], or 'off' for complete fills (default 0.1)")
    .option('--oco-cancel-on <when>', "when an OCO leg cancels the other: 'execution' (as live) or 'trigger'", 'execution')
    .action(async (opts: BacktestCliOptions) => {
      try {
        await runBacktestCommand(opts);
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
    strategy: opts.strategy, strategiesDir: opts.strategies,
    params: opts.params === undefined ? {} : parseJsonObject(opts.params, '--params'),
    interval: opts.interval === undefined ? undefined : parseIntervalOption(opts.interval, '--interval'),
    balances: parseBalances(opts.balance.length > 0 ? opts.balance : ['USDT=10000']),
    risk: opts.risk === undefined ? undefined : parseRiskLimits(opts.risk),
    collateral: parseCollateral(opts.collateral),
    collateralBalances: parseBalances(opts.collateralBalance, '--collateral-balance'),
    fillModel: fillModelOption(fillText(opts)),
  };
}

function fillText(opts: BacktestCliOptions): { volumeShare?: string; ocoCancelOn?: string } {
  return { ...(opts.fillVolumeShare === undefined ? {} : { volumeShare: opts.fillVolumeShare }), ...(opts.ocoCancelOn === undefined ? {} : { ocoCancelOn: opts.ocoCancelOn }) };
}

async function runBacktestCommand(opts: BacktestCliOptions): Promise<void> {
  const collateral = parseCollateral(opts.collateral);
  const collateralBalances = parseBalances(opts.collateralBalance, '--collateral-balance');
  fillModelOption(fillText(opts)); // a bad value fails before any work starts
  const data = opts.data.map(parseDataSpec);
  const from = opts.from === undefined ? undefined : parseTime(opts.from, '--from');
  const to = opts.to === undefined ? undefined : parseTime(opts.to, '--to');
  const balances = parseBalances(opts.balance.length > 0 ? opts.balance : ['USDT=10000']);
  const interval = opts.interval === undefined ? undefined : parseIntervalOption(opts.interval, '--interval');
  const params = opts.params === undefined ? {} : parseJsonObject(opts.params, '--params');
  // Parsed here too so a bad --risk fails before a sweep starts its workers.
  if (opts.risk !== undefined) parseRiskLimits(opts.risk);

  if (opts.sweep !== undefined) {
    const grid = parseJsonObject(opts.sweep, '--sweep');
    const workers = opts.workers === undefined ? undefined : Number(opts.workers);
    const setup = {
      strategy: opts.strategy, strategiesDir: path.resolve(opts.strategies), interval, data, from, to,
      balances: decimalRecordToText(balances), risk: opts.risk, baseParams: params, collateral,
      collateralBalances: decimalRecordToText(collateralBalances), fill: fillText(opts),
    };
    const progress = !process.stderr.isTTY ? undefined : (_r: unknown, done: number, total: number) => {
      process.stderr.write(`\r${done}/${total} runs`);
      if (done === total) process.stderr.write('\n');
    };
    const results = await runSweep(setup, grid, { workers, onResult: progress });
    process.stdout.write(formatSweepTable(rankResults(results, opts.rankBy), opts.rankBy));
    if (results.some((r) => r.error !== undefined)) process.exitCode = 1;
    return;
  }

  const loaded = await loadBacktestData(data, { from, to });
  const outcome = await runBacktest(backtestSpecOf(opts), loaded);
  const files = await writeReport(opts.out, outcome.result);
  process.stdout.write(formatSummary(outcome, files));
}

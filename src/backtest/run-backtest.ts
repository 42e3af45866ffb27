import type { Clock } from '../core/clock';
import * as path from 'node:path';
import type { Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import { BacktestInputError } from '../domain/errors';
import { guardrailsFromConfig, riskLimitsFromConfig, type RiskSection } from '../config/risk-limits';
import { guardrailsOff } from '../risk/guardrails/guard-rules';
import { summariseGuards } from './replay/guard-summary';
import { STRATEGY_DEFAULTS } from '../config/defaults';
import type { StrategyLogger } from '../strategy/strategy';
import { simMarketInfo } from '../simulator/sim-markets';
import { prepareStrategy, type LoadedStrategy } from '../strategy/prepare-strategy';
import { findStrategy, type FoundStrategy } from '../strategy/strategy-loader';
import { inferInterval, loadMarketData, sliceByTime, type DataSpec, type MarketCandles } from './data/market-data';
import type { FillModel } from '../domain/fill-model';
import type { CollateralMode } from '../simulator/engine/sim-engine';
import { BacktestReplay, type ReplayResult } from './replay/backtest-replay';
import { analyseBacktest, buildEquitySeries, reportedCurve, type BacktestResult, type CandlesByMarket, type RunContext } from './report';
import { parseRiskOption } from './options';
import { summariseOrders } from './replay/order-outcomes';
import { strategyFailed } from './replay/strategy-health';
import { runAssumptions, runSettings } from './run-context';

export interface BacktestSpec {
  /** Strategy name (its `name`, not the file name). */
  readonly strategy: string;
  /** Folder of strategy modules; default `./strategies`. */
  readonly strategiesDir?: string | undefined;
  /** Overrides of the strategy's parameter defaults (validated by its schema). */
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  /** The strategy's candle interval; default the strategy's own. */
  readonly interval?: Interval | undefined;
  readonly balances: Readonly<Record<string, Decimal>>;
  /** The daemon's `risk` config section (parseRiskOption); default: the daemon's defaults. */
  readonly risk?: RiskSection | undefined;
  /** Which balance OCOs use (SimEngineOptions.collateral); default 'separate', as the live exchange. */
  readonly collateral?: CollateralMode | undefined;
  /** Starting collateral balances (OCO margin); empty when omitted, never a copy of `balances`. */
  readonly collateralBalances?: Readonly<Record<string, Decimal>> | undefined;
  /** Partial fills and the OCO rule (FILL-MODEL.md); default the real behaviour. */
  readonly fillModel?: FillModel | undefined;
}

/** Candles loaded once (a sweep reuses them for every run). */
export interface BacktestData {
  readonly markets: readonly MarketCandles[];
  readonly dataInterval: Interval;
  /** The range asked for (Unix s), when one was. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /**
   * Unix s where trading starts; the candles before it only warm the strategy up (their intents are
   * dropped, as the daemon's warm-up) and are left out of the report. Default: the first candle.
   */
  readonly tradeFrom?: number | undefined;
}

/** What a run may do besides computing: where `ctx.log` goes. */
export interface BacktestRunOptions {
  /** Builds the logger behind `ctx.log` from the run's simulated clock; default: nowhere. */
  readonly log?: ((clock: Clock) => StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger }) | undefined;
  /** The file the log goes to, named in the report. */
  readonly logFile?: string | undefined;
  /**
   * Keep every point of the equity curve in the result's `run.equity` (`--full-curve`); default only
   * the points report.json writes (reportedCurve). The metrics come from the full curve either way.
   */
  readonly fullCurve?: boolean | undefined;
}

export interface BacktestOutcome {
  readonly strategy: LoadedStrategy;
  readonly replay: ReplayResult;
  readonly result: BacktestResult;
}

export async function loadBacktestData(specs: readonly DataSpec[], range: { from?: number | undefined; to?: number | undefined } = {}): Promise<BacktestData> {
  if (specs.length === 0) throw new BacktestInputError('at least one --data MARKET=FILE.csv is needed', { field: 'data' });
  const markets = await loadMarketData(specs, range);
  const intervals = [...new Set(markets.map((m) => inferInterval(m.candles, m.market)))];
  if (intervals.length !== 1) throw new BacktestInputError(`the data files have different intervals (${intervals.join(', ')})`, { field: 'data' });
  return { markets, dataInterval: intervals[0] as Interval, from: range.from, to: range.to };
}

/** The candles of `data` with from <= time < to (a walk-forward window); times are sorted, so two binary searches per market. */
export function sliceBacktestData(data: BacktestData, from: number | undefined, to: number | undefined, tradeFrom?: number): BacktestData {
  const markets = data.markets.map((m) => ({ ...m, candles: sliceByTime(m.candles, from, to) }));
  const empty = markets.find((m) => sliceByTime(m.candles, tradeFrom).length === 0);
  if (empty !== undefined) throw new BacktestInputError(`${empty.market}: no candles between ${tradeFrom ?? from ?? '-'} and ${to ?? '-'}`, { field: 'data', market: empty.market });
  return { markets, dataInterval: data.dataInterval, from: tradeFrom ?? from, to, tradeFrom };
}

/**
 * Finds the named strategy in its folder, evaluating only the module that defines it (the daemon's
 * module loader, `findStrategy`), with the parameter overrides, trading every market that has data,
 * optionally on another interval.
 */
export function loadNamedStrategy(spec: BacktestSpec, markets: readonly string[], cache?: StrategyCache): LoadedStrategy {
  return findNamedStrategy(spec, markets, cache).strategy;
}

/** `loadNamedStrategy` with the source files (and their hashes) the strategy was built from. */
export function findNamedStrategy(spec: BacktestSpec, markets: readonly string[], cache?: StrategyCache): FoundStrategy {
  const dir = path.resolve(spec.strategiesDir ?? 'strategies');
  const config = { markets, ...(spec.params === undefined ? {} : { params: spec.params }) };
  const key = strategyCacheKey(dir, spec.strategy);
  const known = cache?.get(key);
  const found = known !== undefined
    ? { strategy: prepareStrategy(known.strategy.definition, { file: known.strategy.file, config }), sources: known.sources }
    : findStrategy(dir, spec.strategy, config);
  cache?.set(key, found);
  const s = found.strategy;
  return spec.interval === undefined || spec.interval === s.interval ? found : { ...found, strategy: Object.freeze({ ...s, interval: spec.interval }) };
}

/**
 * Strategies already found, by folder and name: a sweep transpiles the module once per worker and
 * only re-validates the parameters of each run (prepareStrategy), instead of reloading the folder.
 */
export type StrategyCache = Map<string, FoundStrategy>;

/** The cache's key of a strategy: a caller that loaded the module itself (a drift guest, by file) puts it there. */
export function strategyCacheKey(dir: string, name: string): string {
  return `${path.resolve(dir)}\u0000${name}`;
}

/** Runs one backtest in memory and analyses it (no files written). */
export async function runBacktest(spec: BacktestSpec, data: BacktestData, cache?: StrategyCache, options: BacktestRunOptions = {}): Promise<BacktestOutcome> {
  const found = findNamedStrategy(spec, data.markets.map((m) => m.market), cache);
  const strategy = found.strategy;
  const infos = data.markets.map((m) => simMarketInfo(m.market));
  const quotes = [...new Set(infos.map((i) => i.money))];
  if (quotes.length !== 1) throw new BacktestInputError(`all markets must share one quote currency, got ${quotes.join(', ')}`, { field: 'data' });
  const risk = spec.risk ?? parseRiskOption(undefined);
  const strategyRules = { timeBudgetMs: STRATEGY_DEFAULTS.timeBudgetMs, maxConsecutiveFailures: STRATEGY_DEFAULTS.maxConsecutiveFailures };
  const collateral = spec.collateral ?? 'separate';
  const guardrails = guardrailsFromConfig(risk);
  const replay = await new BacktestReplay({
    strategies: [strategy],
    markets: data.markets.map((m, i) => ({ info: infos[i]!, candles: m.candles })),
    dataInterval: data.dataInterval,
    balances: spec.balances,
    risk: riskLimitsFromConfig(risk),
    guardrails,
    collateral,
    collateralBalances: spec.collateralBalances,
    fillModel: spec.fillModel,
    strategyRules,
    log: options.log,
    tradeFrom: data.tradeFrom,
  }).run();
  const candles: CandlesByMarket = Object.fromEntries(data.markets.map((m) => [m.market, data.tradeFrom === undefined ? m.candles : sliceByTime(m.candles, data.tradeFrom)]));
  const quoteCurrency = quotes[0] as string;
  const curve = buildEquitySeries(replay.fills, candles, spec.balances, quoteCurrency, data.dataInterval);
  const equity = reportedCurve(curve, { interval: strategy.interval, fills: replay.fills, full: options.fullCurve });
  const title = `${strategy.name} ${strategy.interval} on ${data.markets.map((m) => m.market).join(', ')} ${JSON.stringify(strategy.params).replace(/,"/g, ', "')}`;
  const settingsInput = {
    found, dataInterval: data.dataInterval, from: data.from, to: data.to, balances: spec.balances, markets: infos, collateral, risk, strategyRules,
    collateralBalances: spec.collateralBalances, fill: spec.fillModel,
    data: data.markets.map((m) => ({ market: m.market, file: m.file ?? '(in memory)', sha256: m.sha256 ?? '', candles: (candles[m.market] ?? []).length })),
  };
  const context: RunContext = {
    settings: runSettings(settingsInput), health: replay.health, orders: summariseOrders(replay.orders),
    assumptions: runAssumptions(settingsInput), logFile: options.logFile,
    guardrails: guardrailsOff(guardrails) ? undefined : summariseGuards(replay.guardEvents, replay.orders),
  };
  const result = analyseBacktest({ fills: replay.fills, candles, startBalances: spec.balances, quoteCurrency, interval: data.dataInterval, equity, curve, curveInterval: options.fullCurve === true ? data.dataInterval : strategy.interval, title, context });
  return { strategy, replay, result };
}

/** True when a strategy of the run failed, overran its budget or was paused: the CLI then exits non-zero. */
export function runFailed(outcome: BacktestOutcome): boolean {
  return outcome.replay.health.some(strategyFailed);
}

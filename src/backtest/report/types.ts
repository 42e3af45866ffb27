import type { Candle, Interval } from '../../domain/candle';
import type { GuardSummary } from '../replay/guard-summary';
import type { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import type { BacktestFill } from '../replay/backtest-fill';
import type { OrderOutcomes } from '../replay/order-outcomes';
import type { StrategyHealth } from '../replay/strategy-health';

/**
 * Input and output types of the backtest report. The backtester produces a `BacktestRun`
 * (fills + candles + starting balances, plus an equity curve from `buildEquityCurve`);
 * `analyseBacktest` turns it into a `BacktestResult`, which the JSON and HTML writers render.
 * Money is Decimal throughout; only ratios (Sharpe, win rate, percentages) are JS numbers.
 */

export type { BacktestFill, FillOrderKind } from '../replay/backtest-fill';

/** Candles per market, each list sorted by open time. Gaps are allowed (real data has them). */
export type CandlesByMarket = Readonly<Record<MarketName, readonly Candle[]>>;

/** Starting balances by currency code, e.g. `{ USDT: 1000, BTC: 0 }`. */
export type StartBalances = Readonly<Record<string, Decimal>>;

/**
 * Account value in the quote currency at instant `time` (Unix seconds). Point 0 is the start
 * (first candle's open time, valued at open prices); point k is the close instant of the k-th
 * candle time (open time + interval), valued at close prices, after every fill before that instant.
 */
export interface EquityPoint {
  readonly time: number;
  /** Exact account value in the quote currency. */
  readonly equity: Decimal;
  /**
   * The same as a double, when the curve computed it (buildEquityCurve does): what charts and
   * ratios read, so that they never convert half a million Decimals. Never used for money.
   */
  readonly value?: number;
  /** `equity.toString()`, when the curve can write it faster than building the Decimal (report.json). */
  equityText?(): string;
}

/**
 * An equity curve at full resolution as columns (buildEquitySeries): the doubles every ratio and the
 * drawdown search read, and the exact point built only where it is read. A year of 1m candles is
 * half a million points, so no object is kept per point.
 */
export interface EquitySeries {
  readonly length: number;
  /** Point times (Unix s), ascending. */
  readonly times: ArrayLike<number>;
  /** Point values as doubles (never used for money). */
  readonly values: ArrayLike<number>;
  /** The exact point k (its equity a Decimal). */
  point(k: number): EquityPoint;
}

/** Everything the report needs from one backtest run. */
export interface BacktestRun {
  readonly fills: readonly BacktestFill[];
  readonly candles: CandlesByMarket;
  readonly startBalances: StartBalances;
  /** Currency every balance is valued in, e.g. `USDT`. Every market must quote in it. */
  readonly quoteCurrency: string;
  /** Candle interval; used to annualise Sharpe/Sortino and to detect gaps. */
  readonly interval: Interval;
  /**
   * The curve the report writes and draws: usually `buildEquityCurve(fills, candles, startBalances,
   * quoteCurrency, interval)`, or, with `curve`, the points of it picked by `reportedCurve` (the
   * strategy's interval, every fill's point, the drawdown extremes). At least 1 point.
   */
  readonly equity: readonly EquityPoint[];
  /**
   * The full-resolution curve (buildEquitySeries) when `equity` holds only some of its points: the
   * metrics and the benchmark are computed from it. Absent: `equity` is the full curve.
   */
  readonly curve?: EquitySeries | undefined;
  /** The spacing of `equity` when it was sampled from `curve` (the strategy's interval); default `interval`. */
  readonly curveInterval?: Interval | undefined;
  /** Free text shown in the report header (strategy name, parameters). Escaped on output. */
  readonly title?: string;
  /** What the backtester knows besides the fills (settings, strategy health, order outcomes); absent for a bare analysis. */
  readonly context?: RunContext;
}

/** A data file of the run, identified by its content. */
export interface RunDataFile {
  readonly market: MarketName;
  readonly file: string;
  /** SHA-256 of the whole file (the range used may be a part of it). */
  readonly sha256: string;
  /** Candles used (after --from/--to). */
  readonly candles: number;
}

/** Everything needed to reproduce a run (report.json `settings`, the HTML "Run settings" table). */
export interface RunSettings {
  readonly strategy: {
    readonly name: string;
    readonly interval: Interval;
    readonly params: unknown;
    /** First 12 hex digits of the SHA-256 over the source files' hashes: changes with any of them. */
    readonly version: string;
    readonly sources: readonly { readonly file: string; readonly sha256: string }[];
  };
  readonly data: readonly RunDataFile[];
  readonly dataInterval: Interval;
  /** The --from / --to asked for (Unix s), when given. */
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly startBalances: Readonly<Record<string, string>>;
  /** Per market: maker and taker fee ratios charged by the simulated exchange. */
  readonly fees: readonly { readonly market: MarketName; readonly maker: string; readonly taker: string }[];
  readonly fillModel: string;
  readonly collateral: 'separate' | 'unified';
  /** The risk limits in force (the daemon's config names), defaults included. */
  readonly risk: Readonly<Record<string, unknown>>;
  /** The daemon's strategy rules applied: time budget (counted) and failures before pause. */
  readonly strategyRules: { readonly timeBudgetMs: number; readonly maxConsecutiveFailures: number };
}

/** What the backtester adds to a run's analysis so the report cannot look cleaner than the run was. */
export interface RunContext {
  readonly settings: RunSettings;
  readonly health: readonly StrategyHealth[];
  readonly orders: OrderOutcomes;
  /** Rules in force by default that deny, reject or change orders by design, in words (summary, JSON, HTML). */
  readonly assumptions: readonly string[];
  /** The `ctx.log` file beside the report, when one was written. */
  readonly logFile?: string | undefined;
  /** When the guardrails (risk.guardrails) tripped and lifted, and what they denied; absent without any. */
  readonly guardrails?: GuardSummary | undefined;
}

export type TradeDirection = 'long' | 'short';

/**
 * A trade: a position round trip on one market, from flat (or the fill that flipped the position)
 * back to flat, with the PnL the portfolio realised over it (src/portfolio/portfolio.ts: average
 * cost, every fee realised when paid). A fill that flips the position closes the trip with part of
 * its amount and opens the next one with the rest (its fee split pro rata by amount).
 */
export interface RoundTripTrade {
  /** 1-based, in order of exit (the last exit part). */
  readonly id: number;
  readonly market: MarketName;
  readonly direction: TradeDirection;
  readonly entryTime: number;
  /** Time of the exit that closed the last of the entry. */
  readonly exitTime: number;
  /** exitTime - entryTime, seconds. */
  readonly durationSeconds: number;
  /** Base amount entered over the trip (= total amount exited). */
  readonly amount: Decimal;
  /** Amount-weighted average price of the entering fills (or parts of a flipping fill). */
  readonly entryPrice: Decimal;
  /** Amount-weighted average price of the exit parts. */
  readonly exitPrice: Decimal;
  /** The portfolio's realised PnL before fees: Σ closed × (price − average entry) over the exits, sign flipped for shorts. */
  readonly grossPnl: Decimal;
  /** Fees of the trip's fills (quote); a flipping fill's fee shared pro rata by amount. */
  readonly fees: Decimal;
  /** grossPnl − fees. */
  readonly netPnl: Decimal;
  /** netPnl / entry notional (entryPrice × amount); a ratio, not percent. */
  readonly returnRatio: number;
  /** Fills touching the trade (a flipping fill counts in both trips it touches). */
  readonly fillCount: number;
  /** What opened it and what closed it, from the orders that filled: "stop-limit buy", "OCO take-profit sell", ... */
  readonly entryReason: string;
  readonly exitReason: string;
}

/**
 * A position still open at the end of the run (its round trip not finished): not a trade in the
 * trade statistics, marked to market in the equity curve (so in net PnL).
 */
export interface OpenPosition {
  readonly market: MarketName;
  readonly direction: TradeDirection;
  /** When the round trip opened. */
  readonly entryTime: number;
  /** Base amount still open (positive). */
  readonly amount: Decimal;
  /** The portfolio's average entry of what is held. */
  readonly entryPrice: Decimal;
  /** Fees paid in this round trip so far. */
  readonly fees: Decimal;
  /** What the portfolio realised in this round trip so far (partial exits, minus every fee paid): not in the metric realizedPnl (closed trades only). */
  readonly realizedPnl: Decimal;
  readonly entryReason: string;
}

/** What a fill did to its market's position: opened/added, reduced/closed, or closed and reopened the other way. */
export type FillAction = 'entry' | 'exit' | 'flip';

/** All report metrics. `null` means "not defined for this run" (e.g. win rate with no trades). */
export interface BacktestMetrics {
  readonly startTime: number;
  readonly endTime: number;
  readonly candleCount: number;
  readonly startEquity: Decimal;
  readonly endEquity: Decimal;
  /** endEquity − startEquity: everything after fees, open positions marked to market. */
  readonly netPnl: Decimal;
  /** netPnl / startEquity × 100; null when startEquity is 0. */
  readonly returnPct: number | null;
  /** Sum of the closed trades' net PnL. */
  readonly realizedPnl: Decimal;
  /** Sum of every fill's fee. */
  readonly totalFees: Decimal;
  /** Largest peak-to-trough fall of the equity curve (quote, >= 0). */
  readonly maxDrawdown: Decimal;
  /** Largest fall relative to its running peak, percent (may come from a different peak than maxDrawdown). */
  readonly maxDrawdownPct: number;
  readonly tradeCount: number;
  readonly winCount: number;
  readonly lossCount: number;
  /** winCount / tradeCount; null with no trades. Break-even trades count in the denominator only. */
  readonly winRate: number | null;
  /** Sum of positive trade net PnL. */
  readonly grossProfit: Decimal;
  /** Magnitude of the sum of negative trade net PnL (>= 0). */
  readonly grossLoss: Decimal;
  /** grossProfit / grossLoss. Infinity when grossLoss is 0 and grossProfit > 0; null when both are 0. */
  readonly profitFactor: number | null;
  readonly averageTrade: Decimal | null;
  readonly bestTrade: Decimal | null;
  readonly worstTrade: Decimal | null;
  /** Mean time from entry to the exit that closed it, seconds; null with no trades. */
  readonly averageTradeSeconds: number | null;
  /** Annualised; null when undefined (fewer than 2 returns or zero deviation). */
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** Compound annual growth rate, percent (365-day year); null when undefined. */
  readonly cagrPct: number | null;
  /** cagrPct / maxDrawdownPct; null without a drawdown or a CAGR. */
  readonly calmar: number | null;
  /** System Quality Number over the trades' net PnL: √N × mean / stdev; null with < 2 trades. */
  readonly sqn: number | null;
  /** Share (0..1) of the run's time with a non-zero position in any market. */
  readonly exposure: number;
  /** Buy-and-hold on the same candles (Benchmark): its return and max drawdown, percent; null when it cannot be priced. */
  readonly benchmarkReturnPct: number | null;
  readonly benchmarkMaxDrawdownPct: number | null;
}

/**
 * Buy and hold on the same data: the starting equity split equally over the markets, bought at each
 * market's first open as a taker (fee from the run's settings, 0 without them), held to the end.
 */
export interface Benchmark {
  /** Per equity point (same times as the run's equity), in the quote currency; empty when it cannot be priced. */
  readonly equity: readonly number[];
  readonly endEquity: Decimal | null;
  readonly returnPct: number | null;
  readonly maxDrawdownPct: number | null;
  /** How it was built, in words (report). */
  readonly description: string;
}

/** The analysed run, ready for the writers. */
export interface BacktestResult {
  readonly run: BacktestRun;
  /** Fills sorted by time (stable), the order `fillActions` refers to. */
  readonly fills: readonly BacktestFill[];
  readonly fillActions: readonly FillAction[];
  readonly trades: readonly RoundTripTrade[];
  readonly openPositions: readonly OpenPosition[];
  readonly benchmark: Benchmark;
  readonly metrics: BacktestMetrics;
}

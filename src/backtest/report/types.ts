import type { Candle, Interval } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import type { OrderSide } from '../../domain/order';

/**
 * Input and output types of the backtest report. The backtester produces a `BacktestRun`
 * (fills + candles + starting balances, plus an equity curve from `buildEquityCurve`);
 * `analyseBacktest` turns it into a `BacktestResult`, which the JSON and HTML writers render.
 * Money is Decimal throughout; only ratios (Sharpe, win rate, percentages) are JS numbers.
 */

/** One simulated execution. Markets are `<BASE>_<QUOTE>`; the fee is always charged in the quote currency. */
export interface BacktestFill {
  /** Unix seconds (may be fractional). */
  readonly time: number;
  readonly market: MarketName;
  readonly side: OrderSide;
  /** Base amount, > 0. */
  readonly amount: Decimal;
  readonly price: Decimal;
  /** Fee in the quote currency, >= 0. */
  readonly fee: Decimal;
  readonly clientOrderId: string;
  readonly role: 'maker' | 'taker';
}

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
  readonly equity: Decimal;
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
  /** Usually `buildEquityCurve(fills, candles, startBalances, quoteCurrency, interval)`. At least 1 point. */
  readonly equity: readonly EquityPoint[];
  /** Free text shown in the report header (strategy name, parameters). Escaped on output. */
  readonly title?: string;
}

export type TradeDirection = 'long' | 'short';

/**
 * A round trip: from flat to flat in one market, positions matched FIFO. A fill that flips
 * the position closes this trade and opens the next one with the remainder (fee split pro rata).
 */
export interface RoundTripTrade {
  /** 1-based, in order of exit. */
  readonly id: number;
  readonly market: MarketName;
  readonly direction: TradeDirection;
  readonly entryTime: number;
  readonly exitTime: number;
  /** Total base amount entered (= total amount exited). */
  readonly amount: Decimal;
  /** Amount-weighted average entry price. */
  readonly entryPrice: Decimal;
  /** Amount-weighted average exit price. */
  readonly exitPrice: Decimal;
  /** PnL before fees: sum over matched lots of (exit − entry) × amount, sign flipped for shorts. */
  readonly grossPnl: Decimal;
  /** Entry and exit fees belonging to this trade (quote). */
  readonly fees: Decimal;
  /** grossPnl − fees. */
  readonly netPnl: Decimal;
  /** netPnl / entry notional (entryPrice × amount); a ratio, not percent. */
  readonly returnRatio: number;
  /** Number of fills (or parts of a split fill) in the trade. */
  readonly fillCount: number;
}

/** A position still open at the end of the run (not counted in trade statistics; marked to market in equity). */
export interface OpenPosition {
  readonly market: MarketName;
  readonly direction: TradeDirection;
  readonly entryTime: number;
  /** Base amount currently held (positive). */
  readonly amount: Decimal;
  readonly entryPrice: Decimal;
  /** Entry fees paid so far for the open part. */
  readonly fees: Decimal;
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
  /** Annualised; null when undefined (fewer than 2 returns or zero deviation). */
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** Share (0..1) of the run's time with a non-zero position in any market. */
  readonly exposure: number;
}

/** The analysed run, ready for the writers. */
export interface BacktestResult {
  readonly run: BacktestRun;
  /** Fills sorted by time (stable), the order `fillActions` refers to. */
  readonly fills: readonly BacktestFill[];
  readonly fillActions: readonly FillAction[];
  readonly trades: readonly RoundTripTrade[];
  readonly openPositions: readonly OpenPosition[];
  readonly metrics: BacktestMetrics;
}

import { ManualClock, SystemClock, type Clock } from '../../core/clock';
import { intervalSeconds, type Candle, type Interval } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketInfo, MarketName } from '../../domain/market';
import type { RiskLimits } from '../../risk/risk-limits';
import type { FillModel } from '../../domain/fill-model';
import { SimEngine, type CollateralMode } from '../../simulator/engine/sim-engine';
import { candleStep, type CandleStepParts, type StepCandle } from '../../strategy/candle-step';
import type { LoadedStrategy } from '../../strategy/prepare-strategy';
import { StrategyHost, type StrategyStats } from '../../strategy/strategy-host';
import type { StrategyLogger } from '../../strategy/strategy';
import { STRATEGY_DEFAULTS } from '../../config/defaults';
import { riskLimitsFromConfig } from '../../config/risk-limits';
import { riskSection } from '../../config/schema';
import { HealthRecorder, type StrategyHealth } from './strategy-health';
import type { BacktestFill } from './backtest-fill';
import { CandleAggregator } from './candle-aggregator';
import { orderLogEntry, trailingLegEntry, type OrderLogEntry } from './order-log';
import { TradingKernel } from '../../execution/kernel/trading-kernel';
import { InProcessExchange } from '../../simulator/in-process-exchange';
import type { EngineEvent } from '../../simulator/engine/types';
import type { PositionState } from '../../portfolio/portfolio';
import type { GuardrailSettings } from '../../risk/guardrails/guard-rules';
import { markSettledCandle } from '../../execution/kernel/guard-marks';
import { guardEventLog, type GuardEvent } from './guard-events';

export interface ReplayMarket {
  readonly info: MarketInfo;
  /** Data candles, ascending, all of `dataInterval`. */
  readonly candles: readonly Candle[];
}

export interface ReplayInput {
  readonly strategies: readonly LoadedStrategy[];
  readonly markets: readonly ReplayMarket[];
  readonly dataInterval: Interval;
  /** Starting trading (spot) balances. */
  readonly balances: Readonly<Record<string, Decimal>>;
  /**
   * Starting collateral balances, where OCOs hold their margin ('separate' mode). Empty when omitted:
   * the collateral account is its own, funded explicitly (as by a transfer on the venue), never a copy.
   */
  readonly collateralBalances?: Readonly<Record<string, Decimal>> | undefined;
  /** Partial fills and the OCO rule, as in the simulator (FILL-MODEL.md); default the real behaviour. */
  readonly fillModel?: FillModel | undefined;
  readonly risk?: RiskLimits | undefined;
  /** Drawdown stops, cooldowns and budgets (config `risk.guardrails`); default none. */
  readonly guardrails?: GuardrailSettings | undefined;
  /**
   * Which balance OCOs use, as in the simulator (FILL-MODEL.md "Collateral"): 'separate' (default,
   * as live: margin in the money currency on the collateral balance; a sell exit becomes a short
   * there and the spot stock stays) or 'unified' (OCO legs trade the trading balance like spot orders).
   */
  readonly collateral?: CollateralMode | undefined;
  /**
   * The daemon's strategy rules (config `strategies`): an onCandle call over `timeBudgetMs` is
   * counted as an overrun (its intents are kept, so results do not depend on the machine), and
   * `maxConsecutiveFailures` failures in a row pause the strategy for the rest of the run.
   * Default STRATEGY_DEFAULTS, as the daemon.
   */
  readonly strategyRules?: { readonly timeBudgetMs?: number | undefined; readonly maxConsecutiveFailures?: number | undefined } | undefined;
  /**
   * Unix s: intents of candles that open before it are dropped, as the daemon drops those of its warm-up candles: the
   * candles before it only warm the strategy up (a walk-forward test window starts warm). Default: none.
   */
  readonly tradeFrom?: number | undefined;
  /** Builds the logger behind `ctx.log` (a child per strategy and market) from the replay's clock; default nowhere. */
  readonly log?: ((clock: Clock) => StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger }) | undefined;
}

/** The risk limits of a backtest given none: the daemon's defaults (config `risk` with nothing set). */
export const DEFAULT_RISK_LIMITS = riskLimitsFromConfig(riskSection.parse({}));

export interface ReplayResult {
  readonly fills: readonly BacktestFill[];
  readonly orders: readonly OrderLogEntry[];
  readonly finalBalances: Readonly<Record<string, { available: Decimal; freeze: Decimal }>>;
  readonly stats: Readonly<Record<string, StrategyStats>>;
  /** Per strategy: failures, overruns and pauses (StrategyHealth), in the order of `strategies`. */
  readonly health: readonly StrategyHealth[];
  /** Data candles replayed (all markets). */
  readonly candleCount: number;
  /** Strategy candles handed to the host. */
  readonly strategyCandles: number;
  /** The portfolio at the end: position, average entry, realised PnL and fees per (strategy, market). */
  readonly positions: readonly PositionState[];
  /** When a guardrail tripped and when it lifted (docs/risk.md), in order. */
  readonly guardEvents: readonly GuardEvent[];
}

const API_KEY = 'backtest';
/**
 * Finished orders the engine keeps: the settlement before each strategy candle looks up, in the
 * history, the orders that finished since the last one (a handful), so a short history suffices.
 */
const HISTORY_LIMIT = 1000;

interface Lane {
  readonly market: MarketName;
  readonly candles: readonly Candle[];
  readonly aggregators: readonly CandleAggregator[];
  cursor: number;
}

/**
 * One backtest: the data candles go through the simulated exchange's engine (the fill model of paper
 * mode, FILL-MODEL.md) on a ManualClock, and the strategy candles built from them through the
 * StrategyHost, whose intents go through the daemon's own order pipeline (TradingKernel: risk gate,
 * Executor, journal, settlement, order feedback, portfolio) over the engine in this process
 * (InProcessExchange). No HTTP, no Redis, no timers.
 *
 * Order of events for each data time t (all markets merged, as the simulator's market feed does):
 *   1. a strategy candle left open by a data gap is closed at its own end time;
 *   2. the clock moves to the close of t; every market's candle at t is applied to the engine
 *      (triggers and fills in path order). Kill-switch timers are not processed: nothing in a
 *      backtest can arm one (strategies have no such intent);
 *   3. strategy candles that closed with t go to the host (markets in name order), after the
 *      daemon's settlement step for their market when the engine did anything to our orders there
 *      since the last one (nothing happened: nothing to settle, no request); intents are handled at
 *      once, at that clock time, against the close as the last price.
 */
export class BacktestReplay {
  private readonly clock = new ManualClock(0);
  private readonly engine: SimEngine;
  private readonly host: StrategyHost;
  private readonly health: HealthRecorder;
  private readonly kernel: TradingKernel;
  private readonly lanes: Lane[];
  private readonly log: OrderLogEntry[] = [];
  private readonly fills: BacktestFill[] = [];
  private readonly guardEvents: GuardEvent[] = [];
  /**
   * Markets where the market moved our orders since their last settlement. What our own requests did
   * (an order that triggers or fills on arrival, a cancel) is in their answers, which the executor
   * journals: only what happens while a candle is applied needs the settlement step.
   */
  private readonly unsettled = new Set<MarketName>();
  private applying = false;
  private started = false;
  private readonly dataSeconds: number;
  private readonly tradeFrom: number;
  private strategyCandles = 0;

  constructor(input: ReplayInput) {
    this.dataSeconds = intervalSeconds(input.dataInterval);
    this.tradeFrom = input.tradeFrom ?? Number.NEGATIVE_INFINITY;
    const infos = new Map(input.markets.map((m) => [m.info.name, m.info]));
    for (const s of input.strategies) {
      if (intervalSeconds(s.interval) < this.dataSeconds) {
        throw new BacktestInputError(finerThanDataMessage(s.name, s.interval, input.dataInterval), { field: 'interval' });
      }
      for (const m of s.markets) {
        if (!infos.has(m)) throw new BacktestInputError(`strategy ${s.name} trades ${m} but no --data was given for it`, { field: 'data', market: m });
      }
    }
    const collateral = input.collateral ?? 'separate';
    this.engine = new SimEngine({
      // OCO legs answer without a client order id, as on the venue (the default): the daemon's pipeline copes.
      clock: this.clock, markets: [...infos.values()], historyLimit: HISTORY_LIMIT, collateral,
      ...(input.fillModel === undefined ? {} : { fillModel: input.fillModel }),
    });
    this.engine.openAccount(API_KEY, { trading: { ...input.balances }, collateral: { ...input.collateralBalances } });
    this.kernel = new TradingKernel({
      exchange: new InProcessExchange({ engine: this.engine, apiKey: API_KEY }),
      strategies: input.strategies, risk: input.risk ?? DEFAULT_RISK_LIMITS, marketClock: this.clock, wallClock: new SystemClock(),
      lastPrice: (m) => this.engine.lastPrice(m), collateral,
      onFeedbackError: (err) => { throw err; },
      guardrails: input.guardrails === undefined ? undefined : { settings: input.guardrails, observer: guardEventLog(this.guardEvents) },
      // Each leg a move placed is an order of the run, in the order log as the journal has it.
      onTrailing: (e) => { if (e.type === 'moved') this.log.push(trailingLegEntry(e, e.atMs / 1000)); },
    });
    this.engine.onEvent((e) => this.onEngineEvent(e));
    const feedback = this.kernel.feedback.feedback;
    const book = this.kernel.book;
    const budgetMs = input.strategyRules?.timeBudgetMs ?? STRATEGY_DEFAULTS.timeBudgetMs;
    const pauseAfter = input.strategyRules?.maxConsecutiveFailures ?? STRATEGY_DEFAULTS.maxConsecutiveFailures;
    this.health = new HealthRecorder(budgetMs, pauseAfter);
    this.host = new StrategyHost({
      strategies: input.strategies, clock: this.clock, timeBudgetMs: budgetMs, overrunPolicy: 'count', maxConsecutiveFailures: pauseAfter,
      events: this.health.events, logger: input.log?.(this.clock),
      view: {
        balances: () => this.kernel.balances(), openOrders: (s, m) => book.of(s, m), marketInfo: (m) => infos.get(m),
        position: (s, m, close) => feedback.position(s, m, close), events: (s, m) => feedback.take(s, m),
      },
    });
    this.lanes = input.markets.map((m) => {
      const intervals = [...new Set(input.strategies.filter((s) => s.markets.includes(m.info.name)).map((s) => s.interval))].sort();
      return { market: m.info.name, candles: m.candles, aggregators: intervals.map((iv) => new CandleAggregator(iv, input.dataInterval)), cursor: 0 };
    });
    for (const lane of this.lanes) {
      const first = lane.candles[0];
      // As the simulator's feed at the start of a replay: the last price is the first candle's open.
      if (first !== undefined) this.engine.setLastPrice(lane.market, first.open);
    }
  }

  async run(): Promise<ReplayResult> {
    if (this.started) throw new BacktestInputError('a BacktestReplay runs once', { field: 'run' });
    this.started = true;
    await this.kernel.start();
    const count = this.lanes.length === 1 ? await this.runOne(this.lanes[0] as Lane) : await this.runMerged();
    const stats: Record<string, StrategyStats> = {};
    for (const name of this.host.strategyNames()) stats[name] = this.host.stats(name);
    const health = this.host.strategyNames().map((name) => this.health.health(name, stats[name] as StrategyStats));
    const finalBalances: Record<string, { available: Decimal; freeze: Decimal }> = {};
    for (const [cur, e] of this.engine.tradingBalances(API_KEY)) finalBalances[cur] = { available: e.available, freeze: e.freeze };
    return {
      fills: this.fills, orders: this.log, finalBalances, stats, health, candleCount: count, strategyCandles: this.strategyCandles,
      positions: this.kernel.portfolio.states(), guardEvents: this.guardEvents,
    };
  }

  /** Several markets: the data times merged, every market's candle at t applied before any strategy runs. */
  private async runMerged(): Promise<number> {
    const lanes = this.lanes;
    const n = lanes.length;
    const step = this.dataSeconds;
    let count = 0;
    for (;;) {
      let t = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const lane = lanes[i] as Lane;
        const c = lane.candles[lane.cursor];
        if (c !== undefined && c.time < t) t = c.time;
      }
      if (t === Number.POSITIVE_INFINITY) break;
      for (let i = 0; i < n; i++) {
        const gap = this.closeGapBuckets(lanes[i] as Lane, t);
        if (gap !== undefined) await gap;
      }
      const close = t + step;
      this.clock.setMs(close * 1000);
      for (let i = 0; i < n; i++) {
        const lane = lanes[i] as Lane;
        const c = lane.candles[lane.cursor];
        if (c !== undefined && c.time === t) this.applyCandle(lane.market, c, step);
      }
      for (let i = 0; i < n; i++) {
        const lane = lanes[i] as Lane;
        const c = lane.candles[lane.cursor];
        if (c === undefined || c.time !== t) continue;
        lane.cursor++;
        count++;
        const r = this.pushToAggregators(lane, c, close);
        if (r !== undefined) await r;
      }
    }
    return count;
  }

  /** One market (the common case and the benchmark): the same steps without the merge. */
  private async runOne(lane: Lane): Promise<number> {
    const step = this.dataSeconds;
    const candles = lane.candles;
    const gapsMatter = lane.aggregators.some((a) => !a.isPassThrough);
    for (let i = 0; i < candles.length; i++) {
      const c = candles[i] as Candle;
      if (gapsMatter) {
        const gap = this.closeGapBuckets(lane, c.time);
        if (gap !== undefined) await gap;
      }
      const close = c.time + step;
      this.clock.setMs(close * 1000);
      this.applyCandle(lane.market, c, step);
      lane.cursor = i + 1;
      const r = this.pushToAggregators(lane, c, close);
      if (r !== undefined) await r;
    }
    return candles.length;
  }

  private applyCandle(market: MarketName, candle: Candle, step: number): void {
    this.applying = true;
    try {
      this.engine.applyCandle(market, candle, step);
    } finally {
      this.applying = false;
    }
  }

  /**
   * Strategy candles a data gap left open, handed on in interval order; a promise only when one
   * was (an await on every data candle would cost a trip through the microtask queue each).
   */
  private closeGapBuckets(lane: Lane, t: number): Promise<void> | undefined {
    const aggs = lane.aggregators;
    let chain: Promise<void> | undefined;
    for (let i = 0; i < aggs.length; i++) {
      const agg = aggs[i] as CandleAggregator;
      const gapClosed = agg.takeClosedBefore(t);
      if (gapClosed === undefined) continue;
      const next = (): Promise<void> | undefined => this.emit(lane.market, agg.interval, gapClosed.candle, gapClosed.closeTime);
      chain = chain === undefined ? next() : chain.then(next);
    }
    return chain;
  }

  private pushToAggregators(lane: Lane, c: Candle, close: number): Promise<void> | undefined {
    const aggs = lane.aggregators;
    if (aggs.length === 1) {
      const agg = aggs[0] as CandleAggregator;
      const done = agg.push(c, close);
      return done === undefined ? undefined : this.emit(lane.market, agg.interval, done, close);
    }
    // Several intervals on one market: in order, each awaited before the next.
    let chain: Promise<void> | undefined;
    for (const agg of aggs) {
      const done = agg.push(c, close);
      if (done === undefined) continue;
      chain = chain === undefined ? this.emit(lane.market, agg.interval, done, close) : chain.then(() => this.emit(lane.market, agg.interval, done, close));
    }
    return chain;
  }

  /** Hands a closed strategy candle to the per-candle step; a promise only when there is something to wait for. */
  private emit(market: MarketName, interval: Interval, candle: Candle, closeTime: number): Promise<void> | undefined {
    this.strategyCandles++;
    this.clock.setMs(closeTime * 1000);
    // Warm-up: candles that OPEN before tradeFrom (as the report slices them); live, the candle before a run's first was warm-up too.
    return candleStep(this.step, { market, interval, candle, warm: candle.time < this.tradeFrom });
  }

  private readonly step: CandleStepParts<StepCandle> = {
    // The settlement step only where the engine moved our orders since the last one; else the views catch up with our own requests.
    // Then ctx.balances as the exchange has them now (read only when something may have moved them).
    settle: ({ market }) => {
      const settling = this.unsettled.delete(market) ? this.kernel.settle(market) : this.kernel.catchUp();
      return settling === undefined ? this.kernel.freshBalances() : settling.then(() => this.kernel.freshBalances());
    },
    settled: (c) => markSettledCandle(this.kernel.guards, c),
    trail: ({ market, interval, candle }) => this.kernel.trail(market, interval, candle),
    decide: ({ market, interval, candle }) => this.host.handleCandle(market, interval, candle),
    submit: async (intents) => {
      for (const stamped of intents) {
        const time = this.clock.nowMs() / 1000;
        this.log.push(orderLogEntry(stamped, await this.kernel.submit(stamped), time));
      }
    },
  };

  /** Our deals are the report's fills; what the market did to our orders wants the market settled before the next candle. */
  private onEngineEvent(event: EngineEvent): void {
    const order = event.order;
    if (order.apiKey !== API_KEY) return;
    if (this.applying) this.unsettled.add(order.market);
    if (event.type !== 'filled') return;
    const deal = event.deal;
    this.fills.push({
      time: deal.time, market: deal.market, side: deal.side, amount: deal.amount, price: deal.price, fee: deal.fee,
      // An OCO leg's deal carries no client order id (as on the venue): the report names it by its OCO's.
      clientOrderId: order.ocoClientOrderId ?? deal.clientOrderId, role: deal.role === 1 ? 'maker' : 'taker',
      // The leg is told by its type (the stop-loss leg is the stop order).
      orderKind: order.ocoId === undefined ? 'stop_limit' : order.activationPrice === undefined ? 'oco_take_profit' : 'oco_stop_loss',
    });
  }
}

/**
 * The data's candles are aggregated into a strategy's coarser ones, never split into finer ones:
 * say so, and what the author can do (run on the data's interval, or get finer data).
 */
export function finerThanDataMessage(strategy: string, interval: Interval, dataInterval: Interval): string {
  return `strategy ${strategy} runs on ${interval} candles, finer than the data (${dataInterval}): candles are aggregated into coarser ones, never split. `
    + `Run it on the data's interval with --interval ${dataInterval} (or a coarser one), or give it ${interval} data (or finer), e.g. tradebot download --interval ${interval}`;
}

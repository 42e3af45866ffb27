import { ManualClock } from '../../core/clock';
import { intervalSeconds, type Candle, type Interval } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketInfo, MarketName } from '../../domain/market';
import { RiskEngine } from '../../risk/risk-engine';
import type { RiskLimits } from '../../risk/risk-limits';
import type { FillModel } from '../../domain/fill-model';
import { SimEngine, type CollateralMode } from '../../simulator/engine/sim-engine';
import type { StampedIntent } from '../../strategy/intent-validation';
import type { LoadedStrategy } from '../../strategy/prepare-strategy';
import { StrategyHost, type StrategyStats } from '../../strategy/strategy-host';
import type { StrategyLogger } from '../../strategy/strategy';
import { STRATEGY_DEFAULTS } from '../../config/defaults';
import { riskLimitsFromConfig } from '../../config/risk-limits';
import { riskSection } from '../../config/schema';
import { HealthRecorder, type StrategyHealth } from './strategy-health';
import type { BacktestFill } from './backtest-fill';
import { AccountView } from './account-view';
import { CandleAggregator } from './candle-aggregator';
import { OrderFlow, type OrderLogEntry } from './order-flow';
import { OrderJournal } from './order-journal';
import { RealizedPnl } from './realized-pnl';
import { RiskGate } from '../../execution/risk-gate';
import { OrderFeedback } from '../../strategy/order-feedback';

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
   * Unix s before which intents are dropped, as the daemon drops those of its warm-up candles: the
   * candles before it only warm the strategy up (a walk-forward test window starts warm). Default: none.
   */
  readonly tradeFrom?: number | undefined;
  /** Builds the logger behind `ctx.log` (a child per strategy and market) from the replay's clock; default nowhere. */
  readonly log?: ((nowMs: () => number) => StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger }) | undefined;
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
}

const API_KEY = 'backtest';

interface Lane {
  readonly market: MarketName;
  readonly candles: readonly Candle[];
  readonly aggregators: readonly CandleAggregator[];
  cursor: number;
}

/**
 * One backtest: the data candles go through the simulated exchange's engine (the fill model of paper
 * mode, FILL-MODEL.md) on a ManualClock, and the strategy candles built from them through the
 * StrategyHost, whose intents take the executor's path (OrderFlow). No HTTP, no Redis, no timers.
 *
 * Order of events for each data time t (all markets merged, as the simulator's market feed does):
 *   1. a strategy candle left open by a data gap is closed at its own end time;
 *   2. the clock moves to the close of t; every market's candle at t is applied to the engine
 *      (triggers and fills in path order). Kill-switch timers are not processed: nothing in a
 *      backtest can arm one (strategies have no such intent);
 *   3. strategy candles that closed with t go to the host (markets in name order); intents are
 *      handled at once, at that clock time, against the close as the last price.
 */
export class BacktestReplay {
  private readonly clock = new ManualClock(0);
  private readonly engine: SimEngine;
  private readonly host: StrategyHost;
  private readonly health: HealthRecorder;
  private readonly flow: OrderFlow;
  private readonly lanes: Lane[];
  private readonly dataSeconds: number;
  private readonly tradeFrom: number;
  private strategyCandles = 0;

  constructor(input: ReplayInput) {
    this.dataSeconds = intervalSeconds(input.dataInterval);
    this.tradeFrom = input.tradeFrom ?? Number.NEGATIVE_INFINITY;
    const infos = new Map(input.markets.map((m) => [m.info.name, m.info]));
    for (const s of input.strategies) {
      if (intervalSeconds(s.interval) < this.dataSeconds) {
        throw new BacktestInputError(`strategy ${s.name} runs on ${s.interval} candles, finer than the data (${input.dataInterval})`, { field: 'interval' });
      }
      for (const m of s.markets) {
        if (!infos.has(m)) throw new BacktestInputError(`strategy ${s.name} trades ${m} but no --data was given for it`, { field: 'data', market: m });
      }
    }
    const collateral = input.collateral ?? 'separate';
    this.engine = new SimEngine({
      clock: this.clock, markets: [...infos.values()], historyLimit: 1, collateral,
      // The replay's own journal finds an OCO leg's intent by the leg's client order id (never shown to anyone).
      ocoLegIds: 'echo',
      ...(input.fillModel === undefined ? {} : { fillModel: input.fillModel }),
    });
    this.engine.openAccount(API_KEY, { trading: { ...input.balances }, collateral: { ...input.collateralBalances } });
    const journal = new OrderJournal();
    const account = new AccountView(this.engine, API_KEY, collateral);
    const risk = new RiskEngine({ limits: input.risk ?? DEFAULT_RISK_LIMITS, clock: this.clock });
    const gate = new RiskGate(risk, {
      lastPrice: (m) => this.engine.lastPrice(m),
      balances: () => account.balances(),
      openOnMarket: (m) => journal.openOnMarket(m),
    });
    const feedback = new OrderFeedback();
    this.flow = new OrderFlow({
      feedback,
      engine: this.engine, apiKey: API_KEY, clock: this.clock, markets: infos, risk: gate, journal, account,
      pnl: new RealizedPnl(), onRealized: (amount, timeMs) => risk.recordRealizedPnl({ amount, timeMs }),
    });
    this.engine.onEvent((e) => this.flow.onEngineEvent(e));
    const budgetMs = input.strategyRules?.timeBudgetMs ?? STRATEGY_DEFAULTS.timeBudgetMs;
    const pauseAfter = input.strategyRules?.maxConsecutiveFailures ?? STRATEGY_DEFAULTS.maxConsecutiveFailures;
    this.health = new HealthRecorder(budgetMs, pauseAfter);
    this.host = new StrategyHost({
      strategies: input.strategies, clock: this.clock, timeBudgetMs: budgetMs, overrunPolicy: 'count', maxConsecutiveFailures: pauseAfter,
      events: this.health.events, logger: input.log?.(() => this.clock.nowMs()),
      view: {
        balances: () => account.balances(), openOrders: (s, m) => journal.openOf(s, m), marketInfo: (m) => infos.get(m),
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
    const count = this.lanes.length === 1 ? await this.runOne(this.lanes[0] as Lane) : await this.runMerged();
    const stats: Record<string, StrategyStats> = {};
    for (const name of this.host.strategyNames()) stats[name] = this.host.stats(name);
    const health = this.host.strategyNames().map((name) => this.health.health(name, stats[name] as StrategyStats));
    const finalBalances: Record<string, { available: Decimal; freeze: Decimal }> = {};
    for (const [cur, e] of this.engine.tradingBalances(API_KEY)) finalBalances[cur] = { available: e.available, freeze: e.freeze };
    return { fills: this.flow.fills, orders: this.flow.log, finalBalances, stats, health, candleCount: count, strategyCandles: this.strategyCandles };
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
      for (let i = 0; i < n; i++) await this.closeGapBuckets(lanes[i] as Lane, t);
      const close = t + step;
      this.clock.setMs(close * 1000);
      for (let i = 0; i < n; i++) {
        const lane = lanes[i] as Lane;
        const c = lane.candles[lane.cursor];
        if (c !== undefined && c.time === t) this.engine.applyCandle(lane.market, c, step);
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
      if (gapsMatter) await this.closeGapBuckets(lane, c.time);
      const close = c.time + step;
      this.clock.setMs(close * 1000);
      this.engine.applyCandle(lane.market, c, step);
      lane.cursor = i + 1;
      const r = this.pushToAggregators(lane, c, close);
      if (r !== undefined) await r;
    }
    return candles.length;
  }

  private async closeGapBuckets(lane: Lane, t: number): Promise<void> {
    for (const agg of lane.aggregators) {
      const gapClosed = agg.takeClosedBefore(t);
      if (gapClosed !== undefined) await this.emit(lane.market, agg.interval, gapClosed.candle, gapClosed.closeTime);
    }
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

  /** Hands a closed strategy candle to the host; returns a promise only when an async strategy is involved. */
  private emit(market: MarketName, interval: Interval, candle: Candle, closeTime: number): Promise<void> | undefined {
    this.strategyCandles++;
    this.clock.setMs(closeTime * 1000);
    const r = this.host.handleCandle(market, interval, candle);
    if (closeTime < this.tradeFrom) return r instanceof Promise ? r.then(() => undefined) : undefined; // warm-up
    if (r instanceof Promise) return r.then((intents) => this.flow.submitAll(intents));
    if ((r as readonly StampedIntent[]).length > 0) this.flow.submitAll(r);
    return undefined;
  }
}

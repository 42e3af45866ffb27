import type { Clock } from '../../core/clock';
import type { CollateralMode } from '../../domain/collateral';
import { Decimal } from '../../domain/decimal';
import type { Balances, MarketName } from '../../domain/market';
import type { CollateralAssetBalance, ExchangeClient } from '../../exchange/exchange-client';
import type { Portfolio } from '../../portfolio/portfolio';
import type { RiskLimits } from '../../risk/risk-limits';
import { InMemoryLeaseStore } from '../../store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../../store/memory/in-memory-order-store';
import type { StampedIntent } from '../../strategy/intent-validation';
import type { Execution, ExecutionExchange } from './build-execution';
import { settleBeforeCandle } from './candle-settlement';
import type { SubmitResult } from '../orders/executor';
import { buildKernelCore, type KernelCoreOptions } from './kernel-core';
import type { Guardrails } from '../../risk/guardrails/guardrails';
import { LeaseKeeper } from '../guards/lease-keeper';
import type { OpenOrderBook } from './open-order-book';
import type { OrderFeedbackRecorder } from './order-feedback-recorder';
import type { Candle, Interval } from '../../domain/candle';
import type { TrailingEvent, TrailingStops } from '../trailing/trailing-stops';
import { trailBeforeStrategies } from './trailing-step';

/** What the kernel asks the exchange: the executor's calls and the two balance reads of the daemon's pollers. */
export type KernelExchange = ExecutionExchange & Pick<ExchangeClient, 'fetchTradingBalances' | 'fetchCollateralBalanceSummary'>;

export interface TradingKernelOptions {
  readonly exchange: KernelExchange;
  /** Strategies and their markets: the leases this process holds. */
  readonly strategies: readonly { readonly name: string; readonly markets: readonly MarketName[] }[];
  readonly risk: RiskLimits;
  /** Market time: the risk's and the portfolio's day. */
  readonly marketClock: Clock;
  /** Real time: the journal's timestamps, lease TTLs and in-flight windows, as in the daemon. */
  readonly wallClock: Clock;
  /** The market's last price for the risk checks (the newest close). */
  readonly lastPrice: (market: MarketName) => Decimal | undefined;
  /** Errors of the order feedback (a journal read that failed); default ignored. */
  readonly onFeedbackError?: (err: unknown) => void;
  /** What the trailing stops did (the backtest's order log of their legs). */
  readonly onTrailing?: ((e: TrailingEvent) => void) | undefined;
  /** Which balance OCOs trade, as the exchange's engine (KernelCoreOptions.collateral); default 'separate'. */
  readonly collateral?: CollateralMode | undefined;
  /** Drawdown stops, cooldowns and budgets, as the daemon's config gives them (KernelCoreOptions.guardrails). */
  readonly guardrails?: KernelCoreOptions['guardrails'];
}

const NOTHING = new Decimal(0);
const OWNER = 'kernel';
/** The process runs alone on its in-memory journal: its leases never need renewing. */
const LEASE_TTL_MS = 100 * 365 * 86_400_000;

/**
 * The one trading kernel of a process that trades alone on an in-memory journal (a backtest; paper mode
 * in the parity test): the daemon's order pipeline and its views, built by the same buildKernelCore
 * as the daemon's (app/trading-wiring.ts), over in-memory adapters. Intents go through the Executor (risk gate, rounding,
 * client order ids, journal, send, answer), the journal's changes reach the strategies through the
 * OrderFeedbackRecorder (ctx.events) and the Portfolio (ctx.position, the daily loss limit), and
 * `settle` is the daemon's step before a closed candle reaches the strategies. The exchange is any
 * ExchangeClient: the simulator in this process (InProcessExchange) or over HTTP.
 *
 * Balances are read through the exchange as the daemon's pollers read them, when they are next needed
 * after something may have moved them (a submission, a settlement that changed something): the trading
 * balance before the next intent is checked or the next candle goes to the strategies
 * (`freshBalances`), the collateral account (OCO margin) before the next OCO is checked.
 */
export class TradingKernel {
  readonly exec: Execution;
  readonly book: OpenOrderBook;
  readonly feedback: OrderFeedbackRecorder;
  readonly portfolio: Portfolio;
  readonly guards: Guardrails | undefined;
  readonly journal: InMemoryOrderStore;
  readonly trailing: TrailingStops;
  private readonly leases: LeaseKeeper;
  private readonly settleMarket: (market: MarketName) => Promise<void>;
  private readonly trailStep: ReturnType<typeof trailBeforeStrategies>;
  private trading: Balances = {};
  private tradingStale = true;
  private collateral: Readonly<Record<string, CollateralAssetBalance>> = {};
  private collateralStale = true;
  /** A submission changed the journal since the open-order view was last refreshed. */
  private viewsStale = false;

  constructor(private readonly o: TradingKernelOptions) {
    const leaseStore = new InMemoryLeaseStore(o.wallClock);
    this.journal = new InMemoryOrderStore(leaseStore, o.wallClock, o.marketClock);
    this.leases = new LeaseKeeper({ store: leaseStore, owner: OWNER, ttlMs: LEASE_TTL_MS });
    const core = buildKernelCore({
      store: this.journal, marketClock: o.marketClock, risk: { limits: o.risk }, lastPrice: o.lastPrice,
      tradingBalances: () => this.trading,
      // As the daemon's collateral poller: an asset the answer does not list holds nothing.
      collateralFree: (cur) => this.collateral[cur]?.availableWithoutBorrow ?? NOTHING,
      onFeedbackError: o.onFeedbackError, collateral: o.collateral, guardrails: o.guardrails, trailing: { onEvent: o.onTrailing },
      execution: {
        exchange: o.exchange, leases: this.leases, leaseStore, owner: OWNER, clock: o.wallClock,
        markets: [...new Set(o.strategies.flatMap((s) => s.markets))], requestTimeoutMs: 5000,
      },
    });
    this.book = core.book;
    this.portfolio = core.portfolio;
    this.guards = core.guards;
    this.feedback = core.feedback;
    this.exec = core.exec;
    this.trailing = core.trailing;
    this.trailStep = trailBeforeStrategies(core.trailing, this.book, this.feedback, async () => {
      this.invalidateBalances();
      await this.freshBalances();
    });
    this.settleMarket = settleBeforeCandle({
      reconciler: this.exec.reconciler, book: this.book, feedback: this.feedback, pollBalances: async () => this.invalidateBalances(),
    });
    for (const s of o.strategies) for (const m of s.markets) this.leases.want(s.name, m);
  }

  /** Leases, markets, the first reconciliation (the executor's readiness), the views and the balances. */
  async start(): Promise<void> {
    await this.leases.tick();
    await this.exec.catalog.refresh();
    await this.exec.reconciler.runOnce();
    await this.book.refresh();
    await this.freshBalances();
  }

  /** The daemon's step before a closed candle of `market` goes to the strategies. */
  settle(market: MarketName): Promise<void> {
    this.viewsStale = false;
    return this.settleMarket(market);
  }

  /** The trailing stops of `market` on the settled candle (THE candle step's `trail`); undefined when none rests there. */
  trail(market: MarketName, interval: Interval, candle: Candle): Promise<void> | undefined {
    return this.trailStep(market, interval, candle);
  }

  /**
   * The same step when the caller knows the exchange moved none of our orders on `market` since the
   * last one (a backtest watches its engine): nothing to ask the exchange; the open-order view and the
   * order feedback catch up with our own requests, as the settlement step would. Undefined when there
   * is nothing to do.
   */
  catchUp(): Promise<void> | undefined {
    if (!this.viewsStale && !this.feedback.busy) return undefined;
    this.viewsStale = false;
    return this.book.refresh().then(() => this.feedback.idle());
  }

  /** One intent through the executor; the open-order view and the balances follow at once. */
  async submit(stamped: StampedIntent): Promise<SubmitResult> {
    await this.freshBalances();
    if (this.collateralStale && stamped.intent.kind === 'oco') {
      this.collateral = await this.o.exchange.fetchCollateralBalanceSummary();
      this.collateralStale = false;
    }
    const result = await this.exec.executor.submit(stamped);
    if (result.outcome !== 'denied') {
      this.book.note(result.records);
      this.viewsStale = true;
      this.invalidateBalances();
    }
    return result;
  }

  /** The trading balance as last read (ctx.balances, the risk checks): call `freshBalances` first. */
  balances(): Balances {
    return this.trading;
  }

  /** Re-reads the trading balance if something may have moved it since; undefined when nothing has (no request). */
  freshBalances(): Promise<void> | undefined {
    if (!this.tradingStale) return undefined;
    return this.o.exchange.fetchTradingBalances().then((balances) => {
      this.trading = balances;
      this.tradingStale = false;
    });
  }

  /** Something may have moved the balances (the daemon's poller would see it on its next run). */
  invalidateBalances(): void {
    this.tradingStale = true;
    this.collateralStale = true;
  }
}

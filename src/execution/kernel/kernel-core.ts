import type { Clock } from '../../core/clock';
import { ocoWallet, type CollateralMode } from '../../domain/collateral';
import type { Decimal } from '../../domain/decimal';
import type { Balances, MarketName } from '../../domain/market';
import { Portfolio } from '../../portfolio/portfolio';
import { RiskEngine, type RiskEngineOptions } from '../../risk/risk-engine';
import { Guardrails, type GuardObserver } from '../../risk/guardrails/guardrails';
import { guardrailsOff, type GuardrailSettings } from '../../risk/guardrails/guard-rules';
import type { OrderStore } from '../../store/order-store-port';
import { buildExecution, type Execution, type ExecutionSettings } from './build-execution';
import type { ExecutionEvents } from '../journal/events';
import { OpenOrderBook } from './open-order-book';
import { OrderFeedbackRecorder } from './order-feedback-recorder';
import { RiskGate } from '../orders/risk-gate';
import type { TrailingStore } from '../../store/trailing-store-port';
import { InMemoryTrailingStore } from '../../store/memory/in-memory-trailing-store';
import { TrailingStops, type TrailingEvent, type TrailingStopsDeps } from '../trailing/trailing-stops';

/** What differs between the daemon and a backtest: the adapters, the clocks, the balance sources and the observers. */
export interface KernelCoreOptions {
  /** The order journal (Redis, memory, or a metered wrapper of either). */
  readonly store: OrderStore;
  /** Market time: the portfolio's day (today's PnL, the daily loss limit). */
  readonly marketClock: Clock;
  readonly risk: Omit<RiskEngineOptions, 'pnl' | 'guards'>;
  /** The market's last price (price band, notional). */
  readonly lastPrice: (market: MarketName) => Decimal | undefined;
  /** The trading balance as last read (risk checks, the executor's funds check). */
  readonly tradingBalances: () => Balances;
  /** Free collateral (an OCO's margin) of a currency; undefined while unknown (the exchange decides). */
  readonly collateralFree: (currency: string) => Decimal | undefined;
  /**
   * Which balance OCOs trade (domain/collateral.ts): 'separate' (default: the venue, paper mode) or
   * 'unified' (a backtest's `--collateral unified`). The risk check and the executor's funds check
   * then both read the wallet the legs really trade.
   */
  readonly collateral?: CollateralMode | undefined;
  /** Drawdown stops, cooldowns and budgets (risk/guardrails/), and who watches them act; default none. */
  readonly guardrails?: { readonly settings: GuardrailSettings; readonly observer?: GuardObserver | undefined } | undefined;
  /** Observers of the execution events besides the order feedback (metrics, logs, halts). */
  readonly observers?: ExecutionEvents | undefined;
  /** Errors of the order feedback (a journal read that failed). */
  readonly onFeedbackError?: ((err: unknown) => void) | undefined;
  /** Open orders per (strategy, market) after each refresh of the view (metrics). */
  readonly onOpenCounts?: ((counts: readonly { strategy: string; market: MarketName; count: number }[]) => void) | undefined;
  /** Trailing stops: their journal (default in memory), observers, and the test-only crash point (TrailingStopsDeps). */
  readonly trailing?: {
    readonly store?: TrailingStore | undefined;
    readonly onEvent?: ((e: TrailingEvent) => void) | undefined;
    readonly beforeLegSubmit?: TrailingStopsDeps['beforeLegSubmit'];
  } | undefined;
  /** The order pipeline's own settings (exchange, leases, timeouts, policies). */
  readonly execution: Omit<ExecutionSettings, 'store' | 'risk' | 'events' | 'balances'>;
}

/** The trading kernel's parts, the same classes in every mode. */
export interface KernelCore {
  readonly portfolio: Portfolio;
  readonly riskEngine: RiskEngine;
  /** Undefined when none are configured (nothing tracked, nothing paid). */
  readonly guards: Guardrails | undefined;
  readonly book: OpenOrderBook;
  readonly feedback: OrderFeedbackRecorder;
  readonly exec: Execution;
  /** Trailing stops, moved by THE candle step (trailBeforeStrategies). */
  readonly trailing: TrailingStops;
}

/**
 * Wires the kernel once for the daemon (app/trading-wiring.ts) and the backtest (TradingKernel):
 * the portfolio fed by the journal's fills through the order feedback, the risk engine reading the
 * portfolio's PnL, the risk gate in front of the executor, and the open-order view. Only the options
 * differ, so live, paper and backtest cannot be wired differently by accident.
 */
export function buildKernelCore(o: KernelCoreOptions): KernelCore {
  const portfolio = new Portfolio(o.marketClock);
  const g = o.guardrails;
  const guards = g === undefined || guardrailsOff(g.settings) ? undefined : new Guardrails(g.settings, portfolio, g.observer);
  const riskEngine = new RiskEngine({ ...o.risk, pnl: portfolio, guards });
  const book = new OpenOrderBook(o.store, o.onOpenCounts);
  const feedback = new OrderFeedbackRecorder(o.store, portfolio, o.onFeedbackError);
  const observers = o.observers;
  const events: ExecutionEvents = observers === undefined ? feedback : { emit: (e) => { observers.emit(e); feedback.emit(e); } };
  const wallet = ocoWallet(o.collateral ?? 'separate');
  const gate = new RiskGate(riskEngine, { lastPrice: o.lastPrice, balances: o.tradingBalances, openOnMarket: (m) => book.onMarket(m), openOfStrategy: (st) => book.ofStrategy(st), ocoWallet: wallet });
  const exec = buildExecution({
    ...o.execution, store: o.store, events,
    risk: gate,
    balances: { available: (cur, w) => (w === 'trading' ? o.tradingBalances()[cur]?.available : o.collateralFree(cur)), ocoWallet: wallet },
  });
  const executor = exec.executor;
  const trailing = new TrailingStops({
    store: o.trailing?.store ?? new InMemoryTrailingStore(), orders: o.store, markets: exec.catalog,
    clock: o.execution.clock, marketClock: o.marketClock, onEvent: o.trailing?.onEvent, beforeLegSubmit: o.trailing?.beforeLegSubmit,
    legs: {
      submitLeg: (stamped) => executor.submit(stamped), cancelLeg: (strategy, intent) => executor.cancelOrder(strategy, intent),
      // A move whose next leg the risk gate would refuse (a halt, the price band) is not started: the resting stop stays.
      wouldRefuse: async (stamped) => {
        const info = await exec.catalog.get(stamped.intent.market);
        if (info === undefined) return undefined;
        const verdict = gate.standing(stamped, info);
        return verdict.ok ? undefined : `${verdict.rule}: ${verdict.reason}`;
      },
    },
  });
  executor.routeTrailing(trailing);
  return { portfolio, riskEngine, guards, book, feedback, exec, trailing };
}

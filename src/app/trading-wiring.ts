import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { Decimal } from '../domain/decimal';
import type { Balances, MarketName } from '../domain/market';
import type { CollateralAssetBalance, ExchangeClient } from '../exchange/exchange-client';
import type { OwnStrategy } from '../execution/reconciliation/own-orders';
import { componentLogger, type Logger } from '../log/logger';
import { BalancePoller } from '../market-data/balance-poller';
import { setTradingState, type Metrics } from '../metrics/registry';
import { buildKernelCore } from '../execution/kernel/kernel-core';
import type { ExecutionEvents } from '../execution/journal/events';
import type { OpenOrderBook } from '../execution/kernel/open-order-book';
import type { OrderFeedbackRecorder } from '../execution/kernel/order-feedback-recorder';
import type { Portfolio } from '../portfolio/portfolio';
import type { RiskEngine } from '../risk/risk-engine';
import { executionEventSink, executionSettings, type Execution } from './execution-wiring';
import { MeteredOrderStore } from '../store/metered-order-store';
import { PositionMetrics } from './position-metrics';
import { riskLimitsFromConfig } from '../config/risk-limits';
import type { StateAdapters } from './stores';
import { TradingStateControl } from '../trading-state/trading-state-control';

export interface TradingInput {
  readonly config: FrozenConfig;
  readonly exchange: ExchangeClient;
  readonly state: StateAdapters;
  /** Every market an enabled strategy trades. */
  readonly markets: readonly MarketName[];
  /** The enabled strategies and their markets (whose orders this deployment minted). */
  readonly strategies: readonly OwnStrategy[];
  /** The exchange's time (market clock in paper mode): risk's day boundary, balance polls. */
  readonly marketClock: Clock;
  /** Real time: in-flight windows, lease TTLs. */
  readonly wallClock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Last close of a market (the candle flow's), for notional and price-band checks. */
  readonly lastPrice: (market: MarketName) => Decimal | undefined;
  readonly onRedisUp: (up: boolean) => void;
}

/** The trading core: risk in front of the executor, the journal view, balances and the trading state. */
export interface Trading {
  readonly riskEngine: RiskEngine;
  readonly balances: BalancePoller;
  /** The collateral account, where OCOs hold their margin: read by the executor's balance check of an OCO. */
  readonly collateral: BalancePoller<Readonly<Record<string, CollateralAssetBalance>>>;
  readonly book: OpenOrderBook;
  readonly exec: Execution;
  readonly tradingControl: TradingStateControl;
  /** Fills, realised PnL and exposure per strategy and market (metrics). */
  readonly positions: PositionMetrics;
  /** The executor's logger (intent sink, settlement). */
  readonly execLog: Logger;
  /** What strategies are told about their orders (ctx.events, ctx.position). */
  readonly feedback: OrderFeedbackRecorder;
  /** Positions and PnL from the journal's fills: ctx.position, the daily loss limit, the metrics. */
  readonly portfolio: Portfolio;
  /** The journal as the executor writes it (transitions metered): the account stream writes through it too. */
  readonly store: MeteredOrderStore;
  /** The execution events (metrics, logs, order feedback): the account stream's transitions emit here too. */
  readonly events: ExecutionEvents;
}

/**
 * The daemon's kernel: the same buildKernelCore as a backtest's TradingKernel (portfolio, risk gate,
 * executor, open-order view, order feedback), over the metered journal, with this replica's leases,
 * the balance pollers, metrics and logs as its observers, and the trading-state control, which it
 * initialises from the store (a paused daemon comes back paused).
 */
export async function wireTrading(i: TradingInput): Promise<Trading> {
  const c = i.config;
  const m = i.metrics;
  const balances = new BalancePoller({
    fetch: () => i.exchange.fetchTradingBalances(), clock: i.marketClock,
    onUpdate: (snap) => recordBalances(m, snap.balances, i.markets),
  });
  const collateral = new BalancePoller({ fetch: () => i.exchange.fetchCollateralBalanceSummary(), clock: i.marketClock });
  const store = new MeteredOrderStore(i.state.orders, {
    onTransition: (_record, from, to) => m.orderTransitions.inc({ from, to }),
    onStoreHealth: i.onRedisUp,
  });
  const execLog = componentLogger(i.log, 'executor');
  // Assigned right below: a halt raised by an execution event needs the control, which needs the risk engine.
  let tradingControl: TradingStateControl | undefined;
  const observers = executionEventSink(m, execLog, {
    wallClock: i.wallClock,
    // Halted at once (the state applies synchronously) and stored, so a restart stays halted until
    // an operator fixed the cause (exchange.dialect, the server or region) and resumed.
    halt: (reason) => {
      void tradingControl?.set('halted', reason, i.wallClock.nowMs());
    },
  });
  const replica = executionSettings({
    config: c, exchange: i.exchange, leaseStore: i.state.leases, clock: i.wallClock, marketClock: i.marketClock, markets: i.markets, metrics: m,
    account: i.state.keys.account, strategies: i.strategies,
  });
  const core = buildKernelCore({
    store, marketClock: i.marketClock, lastPrice: i.lastPrice, observers, execution: replica.settings,
    risk: { limits: riskLimitsFromConfig(c.risk), initialState: c.risk.initialState, onStateChange: (next) => setTradingState(m, next) },
    tradingBalances: () => balances.latest()?.balances ?? {},
    collateralFree: (cur) => collateralFree(collateral, cur),
    onFeedbackError: (err) => execLog.warn({ err }, 'order feedback for strategies not recorded'),
    onOpenCounts: (counts) => {
      m.openOrders.reset();
      for (const x of counts) m.openOrders.set({ strategy: x.strategy, market: x.market }, x.count);
    },
  });
  const { portfolio, riskEngine, book, feedback } = core;
  tradingControl = new TradingStateControl(riskEngine, i.state.tradingState, componentLogger(i.log, 'trading-state'));
  setTradingState(m, riskEngine.tradingState);
  portfolio.onFill((state, _fill, realized) => {
    if (realized.isZero()) return;
    execLog.info({ strategy: state.strategy, market: state.market, realized: realized.toString(), today: portfolio.realizedToday().toString() }, 'realised PnL');
  });
  const positions = new PositionMetrics(m, portfolio);
  const exec: Execution = { ...core.exec, leases: replica.leases, owner: replica.owner };
  // What the kernel's executor emits to (observers, then the order feedback), for the account stream's transitions.
  const events: ExecutionEvents = { emit: (e) => { observers.emit(e); feedback.emit(e); } };
  await tradingControl.init(c.risk.initialState);
  return { riskEngine, balances, collateral, book, exec, tradingControl, positions, execLog, feedback, portfolio, store, events };
}

const NOTHING = new Decimal(0);

/**
 * What the collateral account has free for an OCO's margin: unknown (undefined) until the first
 * successful poll, when the check is skipped and the exchange decides; an asset the answer does not
 * list holds nothing.
 */
function collateralFree(poller: BalancePoller<Readonly<Record<string, CollateralAssetBalance>>>, currency: string): Decimal | undefined {
  const snapshot = poller.latest();
  return snapshot === undefined ? undefined : (snapshot.balances[currency]?.availableWithoutBorrow ?? NOTHING);
}

/** Balance gauges for the currencies of the traded markets. */
function recordBalances(metrics: Metrics, balances: Balances, markets: readonly MarketName[]): void {
  const currencies = new Set(markets.flatMap((mk) => mk.split('_')));
  for (const currency of currencies) {
    const b = balances[currency];
    if (b === undefined) continue;
    metrics.balance.set({ currency, kind: 'available' }, b.available.toNumber());
    metrics.balance.set({ currency, kind: 'freeze' }, b.freeze.toNumber());
  }
}

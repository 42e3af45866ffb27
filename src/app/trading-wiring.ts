import { Decimal } from '../domain/decimal';
import { NotReadyError } from '../domain/errors';
import type { Balances, MarketName } from '../domain/market';
import type { CollateralAssetBalance } from '../exchange/exchange-client';
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
import { publishedExecutionEvents, publishFills, publishTradingStateChanges } from './event-wiring';
import { PositionMetrics } from './position-metrics';
import { guardrailsFromConfig, riskLimitsFromConfig } from '../config/risk-limits';
import type { Guardrails } from '../risk/guardrails/guardrails';
import { GuardPersistence, zeroGuardSeries } from './guard-wiring';
import type { DaemonContext } from './daemon-context';
import type { Venue } from './exchange-wiring';
import { requireListedMarkets } from './market-check';
import { startAccountStream, usesAccountStream, type AccountStream } from './stream-wiring';
import { TradingStateControl } from '../trading-state/trading-state-control';
import type { TrailingStops } from '../execution/trailing/trailing-stops';
import { testKillBeforeLeg, trailingObserver, zeroTrailingSeries } from './trailing-wiring';

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
  /** Drawdown stops, cooldowns and budgets (risk.guardrails); undefined when none are configured. */
  readonly guards: Guardrails | undefined;
  /** Their state saved and read back (restart, a standby taking over). */
  readonly guardPersistence: GuardPersistence;
  /** Trailing stops: moved by the candle flow's step, recovered by openTrading. */
  readonly trailing: TrailingStops;
}

/**
 * The daemon's kernel: the same buildKernelCore as a backtest's TradingKernel (portfolio, risk gate,
 * executor, open-order view, order feedback), over the metered journal, with this replica's leases,
 * the balance pollers, metrics and logs as its observers, and the trading-state control, which it
 * initialises from the store (a paused daemon comes back paused). `lastPrice`: a market's last price
 * (the market stream's, else the candle flow's close), for notional and price-band checks.
 */
export async function wireTrading(
  ctx: DaemonContext, venue: Pick<Venue, 'exchange' | 'state' | 'marketClock'>, strategies: readonly OwnStrategy[], lastPrice: (market: MarketName) => Decimal | undefined,
): Promise<Trading> {
  const { config: c, metrics: m, wallClock } = ctx;
  const { exchange, state, marketClock } = venue;
  const markets = [...new Set(strategies.flatMap((s) => s.markets))];
  const balances = new BalancePoller({
    fetch: () => exchange.fetchTradingBalances(), clock: marketClock,
    onUpdate: (snap) => recordBalances(m, snap.balances, markets),
  });
  const collateral = new BalancePoller({ fetch: () => exchange.fetchCollateralBalanceSummary(), clock: marketClock });
  const store = new MeteredOrderStore(state.orders, {
    onTransition: (_record, from, to) => m.orderTransitions.inc({ from, to }),
    onStoreHealth: ctx.onRedisUp,
  });
  const execLog = componentLogger(ctx.log, 'executor');
  // Assigned right below: a halt raised by an execution event needs the control, which needs the risk engine.
  let tradingControl: TradingStateControl | undefined;
  const observers = publishedExecutionEvents(ctx.events, wallClock, executionEventSink(m, execLog, {
    wallClock,
    // Halted at once (the state applies synchronously) and stored, so a restart stays halted until
    // an operator fixed the cause (exchange.dialect, the server or region) and resumed.
    halt: (reason) => {
      void tradingControl?.set('halted', reason, wallClock.nowMs());
    },
  }));
  const replica = executionSettings({
    config: c, exchange, leaseStore: state.leases, clock: wallClock, marketClock, markets, metrics: m,
    account: state.keys.account, strategies,
    // A standby taking over trades under the stops the active replica saved, not its own view.
    onActive: (active) => { if (active) persistence.takeOver(); },
  });
  const guardLog = componentLogger(ctx.log, 'guardrails');
  const guardSettings = guardrailsFromConfig(c.risk);
  let guards: Guardrails | undefined;
  const persistence = new GuardPersistence(ctx, state.guards, () => guards, guardLog, () => replica.leases.heldScopes().length > 0);
  const core = buildKernelCore({
    store, marketClock, lastPrice, observers, execution: replica.settings,
    guardrails: { settings: guardSettings, observer: persistence.observer() },
    risk: { limits: riskLimitsFromConfig(c.risk), initialState: c.risk.initialState, onStateChange: (next) => setTradingState(m, next) },
    tradingBalances: () => balances.latest()?.balances ?? {},
    collateralFree: (cur) => collateralFree(collateral, cur),
    onFeedbackError: (err) => execLog.warn({ err }, 'order feedback for strategies not recorded'),
    onOpenCounts: (counts) => {
      m.openOrders.reset();
      for (const x of counts) m.openOrders.set({ strategy: x.strategy, market: x.market }, x.count);
    },
    trailing: { store: state.trailing, onEvent: trailingObserver(m, execLog), beforeLegSubmit: testKillBeforeLeg(process.env['TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG']) },
  });
  const { portfolio, riskEngine, book, feedback } = core;
  guards = core.guards;
  zeroGuardSeries(m, guardSettings, strategies.map((s) => s.name));
  zeroTrailingSeries(m, strategies);
  await persistence.restore('start');
  tradingControl = new TradingStateControl(riskEngine, state.tradingState, componentLogger(ctx.log, 'trading-state'));
  setTradingState(m, riskEngine.tradingState);
  portfolio.onFill((state, _fill, realized) => {
    if (realized.isZero()) return;
    execLog.info({ strategy: state.strategy, market: state.market, realized: realized.toString(), today: portfolio.realizedToday().toString() }, 'realised PnL');
  });
  const positions = new PositionMetrics(m, portfolio);
  publishFills(ctx.events, portfolio, wallClock);
  publishTradingStateChanges(ctx.events, tradingControl);
  tradingControl.onOperatorResume(() => guards?.release('account'));
  const exec: Execution = { ...core.exec, leases: replica.leases, owner: replica.owner };
  // What the kernel's executor emits to (observers, then the order feedback), for the account stream's transitions.
  const events: ExecutionEvents = { emit: (e) => { observers.emit(e); feedback.emit(e); } };
  await tradingControl.init(c.risk.initialState);
  return { riskEngine, balances, collateral, book, exec, tradingControl, positions, execLog, feedback, portfolio, store, events, guards, guardPersistence: persistence, trailing: core.trailing };
}

/**
 * Before anything is submitted: the exchange's clock guarded, every strategy market listed, the
 * leases taken, then the first reconciliation, retried until it succeeds.
 */
export async function reconcileBeforeTrading(ctx: DaemonContext, venue: Venue, strategies: readonly OwnStrategy[], trading: Trading, signal: AbortSignal): Promise<void> {
  const { exec } = trading;
  await venue.guardClock(trading.tradingControl);
  await requireListedMarkets(ctx.config, exec.catalog, strategies, ctx.log);
  for (const s of strategies) for (const mk of s.markets) exec.leases.want(s.name, mk);
  await exec.leases.tick();
  for (let attempt = 1; !signal.aborted; attempt++) {
    try {
      const summary = await exec.reconciler.runOnce();
      ctx.log.info({ checked: summary.checked, discrepancies: summary.discrepancies }, 'startup reconciliation done: submitting allowed');
      return;
    } catch (err) {
      ctx.log.error({ err, attempt }, 'startup reconciliation failed; retrying (nothing is submitted until it succeeds)');
      await new Promise((r) => setTimeout(r, Math.min(10_000, 1000 * attempt)));
    }
  }
  throw new NotReadyError('shutdown requested before the first reconciliation succeeded', {});
}

/** Journal records read at start-up for the strategies' positions (newest first). */
const JOURNAL_SEED_LIMIT = 10_000;

/**
 * Once reconciled: the open-order view, the strategies' positions from the journal's fills (a
 * restarted daemon does not tell its strategies they are flat), the account stream (fills reach the
 * journal as pushed), then the intents left pending by an earlier run settled. Returns the stream.
 */
export async function openTrading(ctx: DaemonContext, venue: Venue, strategies: readonly OwnStrategy[], trading: Trading): Promise<AccountStream | undefined> {
  const { config: c, log } = ctx;
  const { exec, book, execLog, feedback } = trading;
  await book.refresh();
  await feedback.idle();
  await venue.state.orders.listAll(JOURNAL_SEED_LIMIT)
    .then((records) => feedback.seed(records.filter((r) => r.filledAmount !== '0')))
    .catch((err: unknown) => log.warn({ err }, 'positions for strategies not read from the journal'));
  let accountStream: AccountStream | undefined;
  if (usesAccountStream(c)) {
    const stream = startAccountStream({
      config: c, url: venue.streamUrl, exchange: venue.exchange, metrics: ctx.metrics, log, markets: [...new Set(strategies.flatMap((s) => s.markets))],
      exec, store: trading.store, events: trading.events, onChange: () => { book.refresh().catch(() => undefined); },
    });
    ctx.closers.push({ name: 'account stream', close: async () => stream.stop() });
    accountStream = stream;
  }
  await exec.settler.settlePending({ resendWithinMs: 60_000, resend: (r) => exec.executor.resendPending(r).catch((err: unknown) => execLog.warn({ err, clientOrderId: r.clientOrderId }, 'pending order not resent')) });
  // Trailing stops read back; a move a crash interrupted is finished on its market's first settled candle.
  await trading.trailing.recover();
  const recovered = trading.trailing.list();
  if (recovered.length > 0) log.info({ trailingStops: recovered.map((r) => ({ id: r.id, leg: r.leg.clientOrderId, phase: r.phase })) }, 'trailing stops recovered');
  await book.refresh();
  trading.guardPersistence.open();
  return accountStream;
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

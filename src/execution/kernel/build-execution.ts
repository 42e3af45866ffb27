import type { Clock } from '../../core/clock';
import type { MarketName } from '../../domain/market';
import type { ExchangeClient } from '../../exchange/exchange-client';
import type { LeaseStore } from '../../store/lease-store-port';
import type { OrderStore } from '../../store/order-store-port';
import { NO_EVENTS, type ExecutionEvents } from '../journal/events';
import { Executor } from '../orders/executor';
import { InFlight } from '../reconciliation/in-flight';
import type { LeaseProvider } from '../guards/lease-keeper';
import { MarketCatalog } from './market-catalog';
import { OrderLocator } from '../reconciliation/order-locator';
import type { BalanceView } from '../orders/prepare-order';
import { Readiness } from '../guards/readiness';
import type { OwnOrderPolicy, OwnStrategy } from '../reconciliation/own-orders';
import { Reconciler, type UnknownOrderPolicy } from '../reconciliation/reconciler';
import type { PreTradeRisk } from '../orders/risk-port';
import { Settler } from '../reconciliation/settler';

export type ExecutionExchange = Pick<
  ExchangeClient,
  'fetchMarkets' | 'placeStopLimit' | 'placeOco' | 'cancelOrder' | 'cancelOco' | 'fetchActiveOrders' | 'fetchActiveOcoOrders' | 'fetchOrderHistory'
>;

export interface ExecutionSettings {
  readonly exchange: ExecutionExchange;
  readonly store: OrderStore;
  /** Leases this replica holds (LeaseKeeper). */
  readonly leases: LeaseProvider;
  /** The lease store itself, so the settler leaves records of another LIVE replica to that replica. */
  readonly leaseStore?: Pick<LeaseStore, 'holder'>;
  /** This process's lease owner id. */
  readonly owner?: string;
  readonly risk: PreTradeRisk;
  readonly clock: Clock;
  readonly events?: ExecutionEvents;
  readonly balances?: BalanceView;
  /** Markets scanned for unknown orders (the strategies' markets). */
  readonly markets: readonly MarketName[];
  /** HTTP timeout of one exchange request (the client's timeoutMs). */
  readonly requestTimeoutMs: number;
  /** Longest time a request may wait for a rate-limit token before it is sent (default 10 000). */
  readonly maxLimiterWaitMs?: number;
  /** Extra margin (clock differences between replicas, slow event loop), default 5 000. */
  readonly inFlightMarginMs?: number;
  readonly unknownOrderPolicy?: UnknownOrderPolicy;
  /** This deployment's strategies: their orders are adopted back if the journal lost them. */
  readonly ownStrategies?: readonly OwnStrategy[];
  readonly ownOrderPolicy?: OwnOrderPolicy;
  readonly reconcileIntervalMs?: number;
  /** Market time this process started at (ExecutorDeps.startedAtMs); absent in backtests. */
  readonly startedAtMs?: number;
  readonly reconcileRetryMs?: number;
  readonly marketRefreshMs?: number;
}

/** Every execution component, wired once (the daemon's composition root calls this). */
export interface Execution {
  readonly executor: Executor;
  readonly settler: Settler;
  readonly reconciler: Reconciler;
  readonly readiness: Readiness;
  readonly catalog: MarketCatalog;
  readonly locator: OrderLocator;
  readonly inFlight: InFlight;
}

export function buildExecution(s: ExecutionSettings): Execution {
  const events = s.events ?? NO_EVENTS;
  const inFlight = new InFlight();
  const readiness = new Readiness();
  const locator = new OrderLocator(s.exchange, s.store);
  const catalog = new MarketCatalog({ exchange: s.exchange, clock: s.clock, ...(s.marketRefreshMs === undefined ? {} : { refreshMs: s.marketRefreshMs }) });
  const settler = new Settler({
    store: s.store, locator, clock: s.clock, events, inFlight,
    inFlightWindowMs: s.requestTimeoutMs + (s.maxLimiterWaitMs ?? 10_000) + (s.inFlightMarginMs ?? 5_000),
    ...(s.leaseStore === undefined ? {} : { leases: s.leaseStore }),
    ...(s.owner === undefined ? {} : { owner: s.owner }),
  });
  const executor = new Executor({
    exchange: s.exchange, store: s.store, leases: s.leases, risk: s.risk, markets: catalog, settler, readiness, events, inFlight,
    ...(s.balances === undefined ? {} : { balances: s.balances }),
    ...(s.startedAtMs === undefined ? {} : { startedAtMs: s.startedAtMs }),
  });
  const reconciler = new Reconciler({
    store: s.store, locator, settler, readiness, events, clock: s.clock, exchange: s.exchange, markets: s.markets, leases: s.leases,
    ...(s.unknownOrderPolicy === undefined ? {} : { unknownOrderPolicy: s.unknownOrderPolicy }),
    ...(s.ownStrategies === undefined ? {} : { ownStrategies: s.ownStrategies }),
    ...(s.ownOrderPolicy === undefined ? {} : { ownOrderPolicy: s.ownOrderPolicy }),
    ...(s.reconcileIntervalMs === undefined ? {} : { intervalMs: s.reconcileIntervalMs }),
    ...(s.reconcileRetryMs === undefined ? {} : { retryMs: s.reconcileRetryMs }),
  });
  return { executor, settler, reconciler, readiness, catalog, locator, inFlight };
}

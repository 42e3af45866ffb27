import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import type { MarketName } from '../domain/market';
import type { ExchangeClient } from '../exchange/exchange-client';
import { isDeadLocalOwner } from '../execution/guards/dead-owner';
import type { Execution as BuiltExecution } from '../execution/kernel/build-execution';
import type { ExecutionEvent, ExecutionEvents } from '../execution/journal/events';
import { LeaseKeeper } from '../execution/guards/lease-keeper';
import type { OwnStrategy } from '../execution/reconciliation/own-orders';
import type { KernelCoreOptions } from '../execution/kernel/kernel-core';
import type { Logger } from '../log/logger';
import type { DiscrepancyKind, ReconcileUpdateKind } from '../metrics/definitions';
import type { Metrics } from '../metrics/registry';
import type { LeaseStore } from '../store/lease-store-port';

export interface Execution extends BuiltExecution {
  readonly leases: LeaseKeeper;
  readonly owner: string;
}

export interface ExecutionInput {
  readonly config: FrozenConfig;
  readonly exchange: ExchangeClient;
  readonly leaseStore: LeaseStore;
  /** Wall clock: in-flight windows and lease TTLs are real time. */
  readonly clock: Clock;
  /** Market clock (candle times): intents of candles closed before start are looked for at the venue first. */
  readonly marketClock: Clock;
  readonly markets: readonly MarketName[];
  readonly metrics: Metrics;
  /** The store account (label of tradebot_lease_owned). */
  readonly account: string;
  /** The enabled strategies and their markets: orders they minted are adopted back if the journal lost them. */
  readonly strategies: readonly OwnStrategy[];
  /** This replica took its first lease or gave up its last (a standby becoming active, or the reverse). */
  readonly onActive?: ((active: boolean) => void) | undefined;
}

/** This replica's leases (observed by metrics) and the order pipeline's settings from the config. */
export function executionSettings(i: ExecutionInput): { readonly leases: LeaseKeeper; readonly owner: string; readonly settings: KernelCoreOptions['execution'] } {
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let wasActive = false;
  const leases = new LeaseKeeper({
    store: i.leaseStore, owner, ttlMs: i.config.leases.ttlSeconds * 1000, isDeadOwner: (holder) => isDeadLocalOwner(holder),
    onChange: (scope, held) => {
      i.metrics.leaseOwned.set({ account: i.account, strategy: scope.strategy, market: scope.market }, held ? 1 : 0);
      const active = leases.heldScopes().length > 0;
      if (active !== wasActive) {
        wasActive = active;
        i.onActive?.(active);
      }
    },
  });
  const settings: KernelCoreOptions['execution'] = {
    exchange: i.exchange, leases, leaseStore: i.leaseStore, owner, clock: i.clock, markets: i.markets, requestTimeoutMs: i.config.exchange.timeoutMs,
    unknownOrderPolicy: i.config.reconcile.unknownOrderPolicy, reconcileIntervalMs: i.config.reconcile.intervalSeconds * 1000,
    ownStrategies: i.strategies, ownOrderPolicy: i.config.reconcile.ownOrderPolicy, startedAtMs: i.marketClock.nowMs(),
  };
  return { leases, owner, settings };
}

/**
 * The reconciler's counts as metrics: a fill, trigger or cancel found at the exchange, a lost answer
 * settled, a request that never arrived, an own order adopted back are the journal catching up
 * (updates); only an order one side has and the other does not is a discrepancy (alerted).
 */
const RECONCILE_LABEL: Readonly<Record<string, { readonly discrepancy: DiscrepancyKind } | { readonly update: ReconcileUpdateKind }>> = {
  status: { update: 'status' }, settled: { update: 'settled' }, not_found: { update: 'not_found' }, adopted: { update: 'adopted' },
  missing_at_exchange: { discrepancy: 'missing_at_exchange' }, unknown_at_exchange: { discrepancy: 'unknown_at_exchange' },
};

/**
 * Execution events -> metrics and log lines. An order the exchange took without our client order id, or an order type it does not
 * offer (HTTP 453), halts trading (`halt`). Never throws: a listener failure must not change an order's fate.
 */
export function executionEventSink(
  metrics: Metrics, log: Logger,
  hooks: { halt(reason: string): void; wallClock: Clock },
): ExecutionEvents {
  return {
    emit(e: ExecutionEvent): void {
      switch (e.type) {
        case 'OrderSubmitted':
          log.info({ clientOrderId: e.clientOrderId, strategy: e.strategy, market: e.market, kind: e.kind }, 'order submitted');
          return;
        case 'OrderAccepted':
          log.info({ clientOrderId: e.clientOrderId, orderId: e.orderId, status: e.status }, 'order accepted');
          return;
        case 'OrderDenied':
          metrics.intents.inc({ strategy: e.strategy, result: 'denied', rule: e.rule });
          log.info({ strategy: e.strategy, market: e.market, rule: e.rule, reason: e.reason }, 'intent denied');
          return;
        case 'OrderRejected':
          log.warn({ clientOrderId: e.clientOrderId, reason: e.reason, code: e.code }, 'order rejected');
          return;
        case 'OrderFilled':
        case 'OrderPartiallyFilled':
          log.info({ clientOrderId: e.clientOrderId, filledAmount: e.filledAmount }, e.type === 'OrderFilled' ? 'order filled' : 'order partially filled');
          return;
        case 'OrderCanceled':
          log.info({ clientOrderId: e.clientOrderId, filledAmount: e.filledAmount }, 'order canceled');
          return;
        case 'OrderAnswerLost':
          log.warn({ clientOrderId: e.clientOrderId, error: e.error }, 'order answer lost: outcome unknown until settled');
          return;
        case 'JournalWriteFailed':
          log.error({ clientOrderId: e.clientOrderId, error: e.error }, 'journal write failed after the exchange answered; reconciliation will catch up');
          return;
        case 'ClientOrderIdIgnored':
          metrics.clientOrderIdIgnored.inc();
          log.error({ clientOrderId: e.clientOrderId, market: e.market, canceled: e.canceled, reason: e.reason },
            `client order id ignored by the exchange: trading halted. ${e.reason}`);
          hooks.halt('the exchange ignored a client order id: check exchange.dialect');
          return;
        case 'OrderIdentityAmbiguous':
          metrics.orderIdentityAmbiguous.inc();
          log.error({ clientOrderId: e.clientOrderId, market: e.market, reason: e.reason },
            `cannot tell which venue order is ours: trading halted. ${e.reason}. `
            + 'Compare `tradebot orders` with the venue\'s open OCOs and history, cancel what is not wanted, then tradebot resume (docs/daemon.md, "Order identity on the venue").');
          hooks.halt(`order identity ambiguous on ${e.market}: ${e.clientOrderId}`);
          return;
        case 'OrderTypeRefused':
          log.error({ clientOrderId: e.clientOrderId, market: e.market, kind: e.kind, reason: e.reason },
            `the exchange does not offer ${e.kind === 'stop_limit' ? 'stop-limit' : 'OCO'} orders here (HTTP 453 "This order type is not available"): trading halted. `
            + 'The venue\'s EU region offers neither stop-limit nor OCO orders, the only ones tradebot places; 453 also answers orders on a market not yet open to trading. '
            + 'Check which server and account exchange.baseUrl points at, then tradebot resume.');
          hooks.halt(`the exchange refused the order type (HTTP 453) on ${e.market}: region or market not available`);
          return;
        case 'OrderAdopted':
          log.warn({ clientOrderId: e.clientOrderId, orderId: e.orderId, market: e.market, strategy: e.strategy }, 'order adopted from the exchange into the journal');
          return;
        case 'UnknownOrderFound':
          log.warn({ market: e.market, orderId: e.orderId, clientOrderId: e.clientOrderId, action: e.action }, 'exchange order unknown to the journal');
          return;
        case 'ReconciliationCompleted': {
          metrics.reconciliationLastRun.set(hooks.wallClock.nowMs() / 1000);
          let total = 0;
          for (const [kind, n] of Object.entries(e.discrepancies)) {
            const label = RECONCILE_LABEL[kind];
            if (n <= 0 || label === undefined) continue;
            if ('discrepancy' in label) metrics.reconciliationDiscrepancies.inc({ kind: label.discrepancy }, n);
            else metrics.reconciliationUpdates.inc({ kind: label.update }, n);
            total += n;
          }
          (total > 0 ? log.info.bind(log) : log.debug.bind(log))({ checked: e.checked, counts: e.discrepancies, durationMs: e.durationMs }, 'reconciliation completed');
          return;
        }
        case 'ReconciliationFailed':
          log.error({ error: e.error }, 'reconciliation failed');
          return;
        default:
          log.debug({ event: e }, e.type);
      }
    },
  };
}

import type { Interval } from '../domain/candle';
import { FINAL_STATUSES } from '../domain/order-state';
import type { Executor } from '../execution/orders/executor';
import type { ControlRequest } from '../strategy-control/control-store';
import type { OrderStore } from '../store/order-store-port';
import type { LeaseKeeper } from '../execution/guards/lease-keeper';

export interface CancelAnswer {
  readonly ok: boolean;
  readonly message: string;
  /** Another replica holds the order's lease: the request goes back for it. */
  readonly elsewhere?: boolean;
}

/**
 * `tradebot cancel <id>` and the console's cancel, as the daemon applies them: only an order one of
 * its own strategies placed (the journal has it), cancelled by the replica that holds its lease,
 * through the executor's cancel path (journaled first, fenced by the lease, both legs of an OCO).
 */
export function operatorCancel(deps: {
  readonly store: Pick<OrderStore, 'get'>;
  readonly executor: Pick<Executor, 'submit'>;
  readonly leases: Pick<LeaseKeeper, 'leaseFor'>;
  /** The interval each of this daemon's strategies trades on. */
  readonly strategies: ReadonlyMap<string, Interval>;
}): (request: ControlRequest) => Promise<CancelAnswer> {
  return async (request) => {
    const id = request.clientOrderId;
    if (id === undefined) return { ok: false, message: 'cancel needs the client order id of the order' };
    const record = await deps.store.get(id);
    if (record === undefined) return { ok: false, message: `no order ${id} in this deployment's journal` };
    const interval = deps.strategies.get(record.strategy);
    if (interval === undefined) return { ok: false, message: `order ${id} was not placed by one of this daemon's strategies (${record.strategy}): cancel it at the venue` };
    if (FINAL_STATUSES.has(record.status)) return { ok: false, message: `order ${id} is already ${record.status}: nothing to cancel` };
    if (deps.leases.leaseFor(record.strategy, record.market) === undefined) {
      return { ok: false, elsewhere: true, message: `no running daemon holds the lease of ${record.strategy} on ${record.market}: nothing was cancelled` };
    }
    const result = await deps.executor.submit({ strategy: record.strategy, interval, candleTime: record.candleTime, intent: { kind: 'cancel', market: record.market, clientOrderId: id } });
    switch (result.outcome) {
      case 'canceled':
        return { ok: true, message: `canceled ${id} (${record.strategy} ${record.market} ${record.side} ${record.amount} @ ${record.price}): ${result.records.map((r) => `${r.clientOrderId} ${r.status}`).join(', ')}` };
      case 'unknown':
        return { ok: true, message: `cancel of ${id} sent, no definite answer (${result.reason}): the order stays cancel_pending until the reconciler settles it` };
      case 'denied':
        return { ok: false, message: `cancel of ${id} refused (${result.rule}): ${result.reason}` };
      case 'existing':
        return { ok: false, message: `order ${id} had already ended: ${result.records.map((r) => `${r.clientOrderId} ${r.status}`).join(', ')}` };
      default:
        return { ok: false, message: `cancel of ${id}: ${result.outcome}` };
    }
  };
}

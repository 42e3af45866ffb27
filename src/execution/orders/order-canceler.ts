import { ExchangeRejectedError, InvalidTransitionError, StaleStateError, TradebotError } from '../../domain/errors';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { ExchangeClient } from '../../exchange/exchange-client';
import type { Lease } from '../../store/lease-store-port';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import { applyReport } from '../journal/journal-updater';
import { exchangeClientOrderId } from '../journal/oco-ids';
import type { Settler } from '../reconciliation/settler';

export type CancelExchange = Pick<ExchangeClient, 'cancelOrder' | 'cancelOco'>;

export type CancelOutcome =
  | { readonly outcome: 'canceled'; readonly records: readonly OrderRecord[] }
  | { readonly outcome: 'unknown'; readonly records: readonly OrderRecord[]; readonly reason: string };

const CANCELABLE = new Set(['open', 'triggered', 'partially_filled', 'cancel_pending']);

/**
 * Cancels a resting order (or both legs of an OCO): `request_cancel` is journaled first, fenced by
 * the lease (a replica without the lease cannot cancel either), then the exchange is asked once.
 * - The answer: journaled (`cancel`, or `fill` if it traded meanwhile).
 * - "Unexecuted order was not found" (or any other refusal): the order is no longer open; history
 *   says whether it filled or was canceled, so the settler asks.
 * - No answer: the records stay `cancel_pending`; the reconciler settles them.
 */
export class OrderCanceler {
  constructor(
    private readonly exchange: CancelExchange,
    private readonly store: OrderStore,
    private readonly settler: Settler,
    private readonly events: ExecutionEvents,
  ) {}

  /** `records`: the order, or both legs of an OCO (any order). Final or unsettled legs are skipped. */
  async cancel(records: readonly OrderRecord[], lease: Lease): Promise<CancelOutcome> {
    const pending: OrderRecord[] = [];
    for (const record of records) {
      if (!CANCELABLE.has(record.status)) continue;
      if (record.status === 'cancel_pending') {
        pending.push(record);
        continue;
      }
      try {
        pending.push(await this.store.transition(record.clientOrderId, 'request_cancel', {}, { expectedStatus: record.status, lease }));
        safeEmit(this.events, { type: 'OrderCancelRequested', clientOrderId: record.clientOrderId });
      } catch (err) {
        // Filled or canceled meanwhile: nothing left to cancel on this leg.
        if (!(err instanceof InvalidTransitionError || err instanceof StaleStateError)) throw err;
      }
    }
    const first = pending[0];
    if (first === undefined) return { outcome: 'canceled', records };
    let reports: readonly OrderReport[];
    let ocoId: number | undefined;
    try {
      if (first.kind === 'stop_limit') {
        const ref = first.orderId !== undefined
          ? { market: first.market, orderId: first.orderId }
          : { market: first.market, clientOrderId: exchangeClientOrderId(first) };
        reports = [await this.exchange.cancelOrder(ref)];
      } else {
        const ref = first.ocoId !== undefined
          ? { market: first.market, orderId: first.ocoId }
          : { market: first.market, clientOrderId: exchangeClientOrderId(first) };
        const oco: OcoReport = await this.exchange.cancelOco(ref);
        ocoId = oco.id;
        reports = pending.map((r) => (r.kind === 'oco_sl' ? oco.stopLoss : oco.takeProfit));
      }
    } catch (err) {
      if (err instanceof ExchangeRejectedError) return { outcome: 'canceled', records: await this.settleEach(pending) };
      const reason = err instanceof TradebotError ? `${err.code}: ${err.message}` : String(err);
      return { outcome: 'unknown', records: pending, reason };
    }
    const out: OrderRecord[] = [];
    for (let i = 0; i < pending.length; i++) {
      out.push((await applyReport(this.store, this.events, pending[i] as OrderRecord, reports[i] as OrderReport, ocoId)).record);
    }
    return { outcome: 'canceled', records: out };
  }

  private async settleEach(records: readonly OrderRecord[]): Promise<OrderRecord[]> {
    const out: OrderRecord[] = [];
    for (const record of records) {
      await this.settler.settle(record, undefined, { ownRequest: true });
      out.push((await this.store.get(record.clientOrderId)) ?? record);
    }
    return out;
  }
}

import { minterOf } from '../../core/client-order-id';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { NewOrderRecord, OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import { applyReport } from '../journal/journal-updater';
import type { LeaseProvider } from '../guards/lease-keeper';
import { siblingLegId } from '../journal/oco-ids';

/** This deployment's strategies and the markets each trades: whose client order ids are ours. */
export interface OwnStrategy {
  readonly name: string;
  readonly markets: readonly string[];
}

/**
 * What the reconciler does with an exchange order the journal does not know but whose client order
 * id this deployment minted (the journal was lost: a Redis failover or a restart without
 * persistence): `adopt` (default) journals it again under the strategy that placed it, with its
 * candle time and legs, so fills, cancels and the strategy's open-order view work as before;
 * `ignore` leaves it to the foreign-order policy.
 */
export type OwnOrderPolicy = 'adopt' | 'ignore';

const isOco = (x: OrderReport | OcoReport): x is OcoReport => 'stopLoss' in x;

export class OwnOrderAdopter {
  constructor(private readonly o: {
    readonly store: OrderStore;
    readonly events: ExecutionEvents;
    readonly leases: LeaseProvider | undefined;
    readonly strategies: readonly OwnStrategy[];
  }) {}

  /** The strategy that minted this order's id, if it is ours. */
  minter(candidate: OrderReport | OcoReport): { strategy: string; candleTime: number } | undefined {
    const report = isOco(candidate) ? candidate.stopLoss : candidate;
    const cid = report.clientOrderId;
    if (cid === undefined) return undefined;
    const minted = minterOf(cid, report.market, this.o.strategies);
    if (minted === undefined || (isOco(candidate) ? minted.leg !== 'sl' : minted.leg !== 'o')) return undefined;
    return minted;
  }

  /** Journals one of our orders (a stop-limit, or both legs of an OCO) from the exchange's report. */
  async adopt(candidate: OrderReport | OcoReport, minted: { strategy: string; candleTime: number }): Promise<'adopted' | 'failed'> {
    const report = isOco(candidate) ? candidate.stopLoss : candidate;
    const lease = this.o.leases?.leaseFor(minted.strategy, report.market);
    if (lease === undefined || report.clientOrderId === undefined) return 'failed';
    const reason = 'own order adopted from the exchange by the reconciler (the journal did not have it)';
    const base = { strategy: minted.strategy, market: report.market, side: report.side, amount: report.amount, candleTime: minted.candleTime, reason };
    const legs: [NewOrderRecord, OrderReport][] = [];
    if (isOco(candidate)) {
      const tpId = siblingLegId({ clientOrderId: report.clientOrderId, kind: 'oco_sl' })!;
      const shared = { ...base, price: candidate.takeProfit.price ?? report.price!, activationPrice: report.activationPrice, stopLimitPrice: report.price };
      legs.push([{ ...shared, clientOrderId: report.clientOrderId, kind: 'oco_sl' }, candidate.stopLoss]);
      legs.push([{ ...shared, clientOrderId: tpId, kind: 'oco_tp' }, candidate.takeProfit]);
    } else {
      const price = report.price ?? report.activationPrice;
      if (price === undefined) return 'failed';
      legs.push([{ ...base, clientOrderId: report.clientOrderId, kind: 'stop_limit', price, activationPrice: report.activationPrice }, report]);
    }
    const recorded = await Promise.all(legs.map(([record]) => this.o.store.recordSubmit(record, lease)));
    if (recorded.some((r) => !r.created)) return 'failed'; // a final record with this id exists: reported, not overwritten
    for (let i = 0; i < legs.length; i++) {
      await applyReport(this.o.store, this.o.events, recorded[i]!.record, legs[i]![1], isOco(candidate) ? candidate.id : undefined);
    }
    safeEmit(this.o.events, { type: 'OrderAdopted', clientOrderId: report.clientOrderId, orderId: report.orderId, market: report.market, strategy: minted.strategy });
    return 'adopted';
  }
}

import { isValidClientOrderId } from '../../core/client-order-id';
import type { Clock } from '../../core/clock';
import { LIVE_STATUSES } from '../../domain/order-state';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { ExchangeClient } from '../../exchange/exchange-client';
import type { OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import { applyReport } from '../journal/journal-updater';
import { notBeforeMs, ocoMatchesRecord } from './oco-fingerprint';
import type { LeaseProvider } from '../guards/lease-keeper';
import { OwnOrderAdopter, type OwnOrderPolicy, type OwnStrategy } from './own-orders';

/**
 * What the reconciler does with an active exchange order the journal does not know:
 * - `ignore` (default): report it (event + discrepancy count) and leave it alone. Money-safe default:
 *   it may be an operator's manual order, and tradebot must not touch what it did not place.
 * - `adopt`: journal it under the strategy name `adoptAs`, so it is tracked (fills, cancels) from now
 *   on. Needs the lease of (adoptAs, market) (LeaseKeeper.want). Plain orders only; an unknown OCO is
 *   reported with action `failed`.
 * - `cancel`: cancel it at the exchange (for an account used by tradebot alone).
 */
export type UnknownOrderPolicy = 'ignore' | 'adopt' | 'cancel';

export interface UnknownOrderHandlerOptions {
  readonly store: OrderStore;
  readonly exchange: Pick<ExchangeClient, 'cancelOrder' | 'cancelOco'>;
  readonly events: ExecutionEvents;
  readonly clock: Clock;
  readonly policy: UnknownOrderPolicy;
  readonly adoptAs: string;
  readonly leases?: LeaseProvider;
  /** This deployment's strategies: orders whose ids they minted are adopted under them (own-orders.ts). */
  readonly ownStrategies?: readonly OwnStrategy[];
  /** Default `adopt`. */
  readonly ownOrderPolicy?: OwnOrderPolicy;
}

const isOco = (x: OrderReport | OcoReport): x is OcoReport => 'stopLoss' in x;

export class UnknownOrderHandler {
  private readonly own: OwnOrderAdopter;

  constructor(private readonly o: UnknownOrderHandlerOptions) {
    this.own = new OwnOrderAdopter({ store: o.store, events: o.events, leases: o.leases, strategies: o.ownStrategies ?? [] });
  }

  /**
   * Handles the candidates; returns how many were really unknown to the journal (foreign, or own
   * ones that could not be adopted) and how many of our own were adopted.
   */
  async handle(candidates: readonly (OrderReport | OcoReport)[]): Promise<{ unknown: number; adopted: number }> {
    let unknown = 0;
    let adopted = 0;
    // OCOs first: adopting one journals both legs, so a leg also listed as a plain order is known next.
    for (const candidate of [...candidates].sort((a, b) => Number(isOco(b)) - Number(isOco(a)))) {
      const report = isOco(candidate) ? candidate.stopLoss : candidate;
      const cid = report.clientOrderId;
      if (cid !== undefined && isValidClientOrderId(cid)) {
        // Journaled after our listLive (a submit racing the pass): not unknown, the next pass sees it.
        const record = await this.o.store.get(cid);
        if (record !== undefined && LIVE_STATUSES.has(record.status)) continue;
      }
      // An OCO's legs carry no client id at the venue: one of ours still waiting for its answer (or
      // whose answer was lost) is recognised by its fingerprint and left to the settler.
      if (isOco(candidate) && (await this.awaitedOco(candidate))) continue;
      const minted = (this.o.ownOrderPolicy ?? 'adopt') === 'adopt' ? this.own.minter(candidate) : undefined;
      if (minted !== undefined && (await this.own.adopt(candidate, minted).catch(() => 'failed' as const)) === 'adopted') {
        adopted += 1;
        continue;
      }
      unknown += 1;
      const action = await this.act(candidate);
      safeEmit(this.o.events, { type: 'UnknownOrderFound', market: report.market, orderId: isOco(candidate) ? candidate.id : report.orderId, clientOrderId: cid, action });
    }
    return { unknown, adopted };
  }

  private async awaitedOco(oco: OcoReport): Promise<boolean> {
    const unsettled = (await this.o.store.listLive()).filter((r) => r.kind === 'oco_sl' && r.ocoId === undefined && (r.status === 'submitted' || r.status === 'unknown'));
    return unsettled.some((r) => ocoMatchesRecord(oco, r, notBeforeMs(r)));
  }

  private async act(candidate: OrderReport | OcoReport): Promise<'ignored' | 'adopted' | 'canceled' | 'failed'> {
    try {
      if (this.o.policy === 'ignore') return 'ignored';
      if (this.o.policy === 'cancel') {
        if (isOco(candidate)) await this.o.exchange.cancelOco({ market: candidate.stopLoss.market, orderId: candidate.id });
        else await this.o.exchange.cancelOrder({ market: candidate.market, orderId: candidate.orderId });
        return 'canceled';
      }
      return isOco(candidate) ? 'failed' : await this.adopt(candidate);
    } catch {
      return 'failed'; // reported; the next pass tries again
    }
  }

  private async adopt(report: OrderReport): Promise<'adopted' | 'failed'> {
    const lease = this.o.leases?.leaseFor(this.o.adoptAs, report.market);
    if (lease === undefined) return 'failed';
    const cid = report.clientOrderId !== undefined && isValidClientOrderId(report.clientOrderId) ? report.clientOrderId : `adopted-${report.orderId}`;
    const price = report.price ?? report.activationPrice;
    if (price === undefined) return 'failed';
    const { created, record } = await this.o.store.recordSubmit({
      clientOrderId: cid, strategy: this.o.adoptAs, market: report.market, side: report.side, kind: 'stop_limit',
      amount: report.amount, price, activationPrice: report.activationPrice,
      candleTime: Math.floor(report.timestamp), reason: 'adopted from the exchange by the reconciler',
    }, lease);
    if (!created) return 'failed'; // the journal has this id in a final status: reported, not overwritten
    await applyReport(this.o.store, this.o.events, record, report);
    safeEmit(this.o.events, { type: 'OrderAdopted', clientOrderId: cid, orderId: report.orderId, market: report.market, strategy: this.o.adoptAs });
    return 'adopted';
  }
}

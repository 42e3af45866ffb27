import { exchangeClientOrderId } from '../../../src/execution/journal/oco-ids';
import type { SimEngine } from '../../../src/simulator/engine/sim-engine';
import type { SimOrder } from '../../../src/simulator/engine/types';
import type { OrderRecord } from '../../../src/store/order-store-port';

export interface Comparison {
  /** Client order ids placed more than once at the exchange. */
  readonly duplicates: string[];
  /** Exchange orders with a client order id the journal does not have. */
  readonly unknownToJournal: string[];
  /** Journal records whose status or filled amount does not match the exchange (cid: journal vs exchange). */
  readonly mismatches: string[];
  /** Journal records still submitted/unknown/pending. */
  readonly unsettled: string[];
  readonly placed: number;
}

/** Journal status the exchange's view of one order corresponds to. */
function expectedStatus(order: SimOrder): string {
  if (order.status === 'FILLED') return 'filled';
  if (order.status === 'CANCELED') return 'canceled';
  if (!order.dealStock.isZero()) return 'partially_filled';
  if (order.activationPrice !== undefined && order.activated) return 'triggered';
  return 'open';
}

/**
 * Compares the journal with the simulator's own books (read in-process, not over HTTP): every order
 * placed once, every placed order journaled, every journal status matching the exchange.
 */
export function compareJournalWithSim(records: readonly OrderRecord[], engine: SimEngine, apiKey: string): Comparison {
  const all: SimOrder[] = [
    ...engine.activeOrders(apiKey),
    ...engine.activeOcos(apiKey).flatMap((o) => [o.stopLoss, o.takeProfit]),
    ...engine.orderHistory(apiKey),
  ];
  const byCid = new Map<string, SimOrder[]>();
  for (const o of all) {
    // OCO legs show no client order id (as the venue documents); the engine keeps the OCO's own.
    const cid = o.clientOrderId !== '' ? o.clientOrderId : o.ocoClientOrderId ?? '';
    if (cid === '') continue;
    byCid.set(cid, [...(byCid.get(cid) ?? []), o]);
  }
  const duplicates: string[] = [];
  for (const [cid, orders] of byCid) {
    // one placement = one plain order, or one OCO group (two legs sharing the ocoId)
    const placements = new Set(orders.map((o) => (o.ocoId === undefined ? `o${o.id}` : `g${o.ocoId}`)));
    if (placements.size > 1) duplicates.push(cid);
  }
  const journalIds = new Set(records.map((r) => exchangeClientOrderId(r)));
  const unknownToJournal = [...byCid.keys()].filter((cid) => !journalIds.has(cid));
  const mismatches: string[] = [];
  const unsettled: string[] = [];
  for (const record of records) {
    if (record.status === 'pending' || record.status === 'submitted' || record.status === 'unknown') {
      unsettled.push(record.clientOrderId);
      continue;
    }
    const orders = byCid.get(exchangeClientOrderId(record)) ?? [];
    const leg = record.kind === 'stop_limit' ? orders[0]
      : orders.find((o) => (o.activationPrice !== undefined) === (record.kind === 'oco_sl'));
    const exchange = leg === undefined ? 'absent' : expectedStatus(leg);
    const ok = record.status === 'rejected' ? exchange === 'absent' : exchange === record.status;
    if (!ok) mismatches.push(`${record.clientOrderId}: journal ${record.status} vs exchange ${exchange}`);
    // Partly filled, then cancelled: the journal keeps exactly what executed (amount, money, fee).
    if (leg !== undefined && record.filledAmount !== leg.dealStock.toString()) {
      mismatches.push(`${record.clientOrderId}: journal filled ${record.filledAmount} vs exchange ${leg.dealStock.toString()}`);
    }
    if (leg !== undefined && (record.filledMoney !== leg.dealMoney.toString() || record.fee !== leg.dealFee.toString())) {
      mismatches.push(`${record.clientOrderId}: journal money/fee ${record.filledMoney}/${record.fee} vs exchange ${leg.dealMoney.toString()}/${leg.dealFee.toString()}`);
    }
    if (leg !== undefined && record.orderId !== undefined && record.orderId !== leg.id) mismatches.push(`${record.clientOrderId}: order id ${record.orderId} vs ${leg.id}`);
  }
  return { duplicates, unknownToJournal, mismatches, unsettled, placed: byCid.size };
}

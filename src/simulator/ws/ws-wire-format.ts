import type { Decimal } from '../../domain/decimal';
import type { BalanceEntry, SimDeal, SimOrder, SimOrderType } from '../engine/types';

/**
 * The WebSocket payloads, in the shapes the venue's asyncapi files document (they differ from the
 * HTTP answers: snake_case, numeric side and type, positional deal and candle tuples). One shape per
 * payload; the WebSocket API has no dialects.
 */

/** Order type ids of websocket/account-streams/overview.mdx "Order types". */
const TYPE_IDS: Readonly<Record<SimOrderType, number>> = { limit: 1, 'stop limit': 3, 'margin limit': 7, 'margin stop limit': 9 };

/** 1 = sell, 2 = buy (orders_pending.yaml, deals.yaml). */
const sideId = (side: 'buy' | 'sell'): 1 | 2 => (side === 'sell' ? 1 : 2);
const s = (d: Decimal): string => d.toString();

/** orders_pending.yaml `OrderObject`: records of `ordersPending_request` and `ordersPending_update[1]`. */
export function wsOrder(o: SimOrder): Record<string, unknown> {
  const status = o.status === 'OPEN' && !o.dealStock.isZero() ? 'PARTIALLY_FILLED' : o.status;
  return {
    id: o.id, market: o.market, type: TYPE_IDS[o.type], side: sideId(o.side), post_only: false, ioc: false,
    ctime: o.createdAt, mtime: o.updatedAt, price: s(o.price), amount: s(o.amount), left: s(o.left),
    deal_stock: s(o.dealStock), deal_money: s(o.dealMoney), deal_fee: s(o.dealFee), client_order_id: o.clientOrderId,
    stp: 'no', status, position_side: 'BOTH', rpi: false, retail: false, reduce_only: false,
  };
}

/** deals.yaml `DealsUpdate` params: the 11-element tuple. */
export function wsDealUpdate(d: SimDeal): unknown[] {
  return [d.id, d.time, d.market, d.orderId, s(d.price), s(d.amount), s(d.fee), d.clientOrderId, sideId(d.side), d.role, d.feeAsset];
}

/**
 * deals.yaml `DealsResponse` record. `deal_order_id` is the counterparty's order: the simulator trades
 * against the candle tape, not a book of orders, so there is none; 0 says so in the documented type.
 */
export function wsDealRecord(d: SimDeal): Record<string, unknown> {
  return {
    time: d.time, id: d.id, side: sideId(d.side), role: d.role, price: s(d.price), amount: s(d.amount), deal: s(d.deal),
    fee: s(d.fee), order_id: d.orderId, deal_order_id: 0, market: d.market, client_order_id: d.clientOrderId, fee_asset: d.feeAsset,
  };
}

/** balance_spot.yaml: `{ASSET: {available, freeze}}`. */
export function wsBalance(entry: BalanceEntry): { available: string; freeze: string } {
  return { available: s(entry.available), freeze: s(entry.freeze) };
}

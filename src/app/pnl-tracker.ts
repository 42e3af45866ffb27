import { Decimal } from '../domain/decimal';
import type { OrderRecord } from '../store/order-store-port';

interface Position {
  qty: Decimal;
  cost: Decimal;
}

/**
 * Realised PnL from our fills, for the daily loss limit: average cost per market, long only (spot).
 * A buy fill adds to the position at its limit price; a sell fill realises (price - average cost) x
 * amount, minus the fee margin. The journal knows each order's limit price, not every deal's price,
 * so this is the worst case for a stop-limit (a buy never pays more, a sell never gets less than its
 * limit): the loss limit trips early rather than late. Fills are fed as the cumulative filled amount
 * of an order; only the increase since the last report counts.
 */
export interface PnlTrackerOptions {
  /** Which position a fill belongs to; default its market (the account's position, for the loss limit). */
  readonly keyOf?: (record: OrderRecord) => string;
  /** Every fill increase, after the position was updated (metrics). */
  readonly onFill?: (record: OrderRecord, delta: Decimal, positionQty: Decimal) => void;
}

export class PnlTracker {
  private readonly positions = new Map<string, Position>();
  private readonly seen = new Map<string, Decimal>();
  private readonly keyOf: (record: OrderRecord) => string;

  constructor(
    private readonly feeRate: Decimal,
    private readonly onRealized: (amount: Decimal, record: OrderRecord) => void,
    private readonly options: PnlTrackerOptions = {},
  ) {
    this.keyOf = options.keyOf ?? ((r) => r.market);
  }

  /** Quantity held in a position (base currency), zero when none. */
  quantity(key: string): Decimal {
    return this.positions.get(key)?.qty ?? new Decimal(0);
  }

  onFill(record: OrderRecord): void {
    const total = new Decimal(record.filledAmount);
    const before = this.seen.get(record.clientOrderId) ?? new Decimal(0);
    const delta = total.minus(before);
    if (!delta.greaterThan(0)) return;
    this.seen.set(record.clientOrderId, total);
    // A fill of an OCO's take-profit leg executes at its limit price; a stop leg at its stop-limit price.
    const price = new Decimal(record.kind === 'oco_sl' ? record.stopLimitPrice ?? record.price : record.price);
    const key = this.keyOf(record);
    const pos = this.positions.get(key) ?? { qty: new Decimal(0), cost: new Decimal(0) };
    const fee = delta.times(price).times(this.feeRate);
    if (record.side === 'buy') {
      pos.qty = pos.qty.plus(delta);
      pos.cost = pos.cost.plus(delta.times(price)).plus(fee);
      this.positions.set(key, pos);
      this.options.onFill?.(record, delta, pos.qty);
      return;
    }
    const matched = Decimal.min(delta, pos.qty);
    const avg = pos.qty.greaterThan(0) ? pos.cost.dividedBy(pos.qty) : price;
    const realized = price.minus(avg).times(matched).minus(fee);
    pos.cost = pos.cost.minus(avg.times(matched));
    pos.qty = pos.qty.minus(matched);
    this.positions.set(key, pos);
    this.options.onFill?.(record, delta, pos.qty);
    this.onRealized(realized, record);
  }

  /** Forget orders that are final (bounded memory). */
  forget(clientOrderId: string): void {
    this.seen.delete(clientOrderId);
  }
}

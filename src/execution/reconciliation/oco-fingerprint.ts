import { Decimal } from '../../domain/decimal';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { OrderRecord } from '../../store/order-store-port';

/**
 * How an OCO is recognised at the venue when its create answer was lost. The venue documents
 * `"clientOrderId": ""` on OCO legs (create and list answers), so the id we sent cannot find it.
 * What can: the market, side and amount, the three prices (take-profit, stop-loss activation,
 * stop-loss limit), and a creation time not before we could have sent it.
 *
 * The caller decides on the matches: exactly one that no other journal record owns is ours; none
 * means it was never created; anything else is ambiguous, and the daemon halts rather than guess.
 */
export type OcoLegRecord = Pick<OrderRecord, 'market' | 'side' | 'kind' | 'amount' | 'price' | 'activationPrice' | 'stopLimitPrice'>;

/**
 * The earliest venue creation time (ms) an order of this record can have: the close of its candle,
 * on the exchange's own clock (the candle came from its klines, and nothing is sent before a candle
 * is closed). The daemon judges "closed" on its clock, which may run ahead of the venue's by up to
 * the offset it tolerates before halting (exchange/clock-offset.ts): that much slack. Records without
 * a close time (older journals, adopted orders) fall back to the candle's open.
 */
export function notBeforeMs(record: Pick<OrderRecord, 'candleTime' | 'candleCloseTime'>): number {
  return (record.candleCloseTime ?? record.candleTime) * 1000 - MAX_CLOCK_OFFSET_MS;
}

const MAX_CLOCK_OFFSET_MS = 60_000;

export function ocoMatchesRecord(oco: OcoReport, record: OcoLegRecord, notBeforeMs: number): boolean {
  const sl = oco.stopLoss;
  const tp = oco.takeProfit;
  return sl.market === record.market && sl.side === record.side && created(sl, notBeforeMs)
    && same(sl.amount, record.amount) && same(tp.amount, record.amount)
    && same(tp.price, record.price) && same(sl.activationPrice, record.activationPrice) && same(sl.price, record.stopLimitPrice);
}

/** A finished order row that may be the record's leg (history rows carry no OCO id). */
export function legRowMatchesRecord(row: OrderReport, record: OcoLegRecord, notBeforeMs: number): boolean {
  if (row.market !== record.market || row.side !== record.side || !created(row, notBeforeMs) || !same(row.amount, record.amount)) return false;
  return record.kind === 'oco_sl'
    ? same(row.activationPrice, record.activationPrice) && same(row.price, record.stopLimitPrice)
    : row.activationPrice === undefined && same(row.price, record.price);
}

function created(report: OrderReport, notBeforeMs: number): boolean {
  return report.timestamp * 1000 >= notBeforeMs;
}

function same(reported: Decimal | undefined, journaled: string | undefined): boolean {
  return reported !== undefined && journaled !== undefined && reported.equals(new Decimal(journaled));
}

import type { OrderEvent } from '../../exchange/stream/stream-frames';
import type { OrderRecord } from '../../store/order-store-port';
import { reportDisagreement, type Disagreement } from './report-agreement';

/**
 * What one `ordersPending_update` may do to the journal. The push goes through the SAME transition
 * table as every REST answer (journal-updater.ts); this only decides whether the push can be read
 * alone, or whether the venue must be asked (REST: the truth) because the push is ambiguous:
 * - no record by client order id (OCO legs carry none at the venue, or the journal lost it): ask for the market;
 * - an OCO leg: which leg did what is the locator's job: ask for the record;
 * - a pending record: never sent by us yet, nothing to learn;
 * - a push that claims the record (by client order id, or by the journal's order id) but is not
 *   that order (another order id, or another market, side, kind, amount or price: report-agreement.ts,
 *   the rule REST settlement applies too): never applied, however final it looks; the venue is asked
 *   and the caller counts and logs the disagreement (`mismatch`);
 * - less filled than the journal already says: an older, late or reordered push: ignored;
 * - a stop's second event 1 is its activation, but a duplicated first event 1 looks the same: an
 *   identical repeat is a duplicate (ignored); one unchanged since creation (mtime = ctime) is the
 *   placement, which the journal already has from the create answer (ignored); a changed one after
 *   the placement was seen on this connection is the activation (trigger); without the placement
 *   seen the venue is asked.
 */
export type StreamOrderAction =
  | { readonly kind: 'apply'; readonly event: OrderEvent }
  | { readonly kind: 'ask_record'; readonly record: OrderRecord }
  | { readonly kind: 'ask_market' }
  | { readonly kind: 'mismatch'; readonly record: OrderRecord; readonly disagreement: PushDisagreement }
  | { readonly kind: 'ignore'; readonly reason: string };

export interface NewEventMemory {
  /** The text of the last event 1 seen for this order id on this connection, if any. */
  readonly previousNew: string | undefined;
  /** This event's own text (to compare with a repeat). */
  readonly text: string;
}

/** What a push got wrong about the record it claims: an order fact, or the order id itself. */
export type PushDisagreement = Disagreement | { readonly field: 'orderId'; readonly journaled: string; readonly reported: string };

const UNSETTLED = new Set(['submitted', 'unknown']);

export function decideOrderEvent(record: OrderRecord | undefined, ev: OrderEvent, memory: NewEventMemory): StreamOrderAction {
  if (record === undefined) return { kind: 'ask_market' };
  if (record.kind !== 'stop_limit') return { kind: 'ask_record', record };
  if (record.status === 'pending') return { kind: 'ignore', reason: 'not sent yet' };
  // The order's facts first (the field named is then the same whether or not the id is journaled yet).
  const differs = reportDisagreement(record, ev.report);
  if (differs !== undefined) return { kind: 'mismatch', record, disagreement: differs };
  if (record.orderId !== undefined && record.orderId !== ev.report.orderId) {
    return { kind: 'mismatch', record, disagreement: { field: 'orderId', journaled: String(record.orderId), reported: String(ev.report.orderId) } };
  }
  if (ev.report.dealStock.lessThan(record.filledAmount)) return { kind: 'ignore', reason: 'older than the journal' };
  if (ev.eventId === 1 && ev.isStop && !UNSETTLED.has(record.status)) {
    if (memory.previousNew === memory.text) return { kind: 'ignore', reason: 'duplicate' };
    if (!ev.changedSinceCreation) return { kind: 'ignore', reason: 'placement, already journaled' };
    if (memory.previousNew === undefined) return { kind: 'ask_record', record };
    return { kind: 'apply', event: { ...ev, report: { ...ev.report, activated: true, activationPrice: ev.report.price } } };
  }
  return { kind: 'apply', event: ev };
}

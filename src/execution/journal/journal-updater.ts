import { Decimal } from '../../domain/decimal';
import { InvalidTransitionError, StaleStateError } from '../../domain/errors';
import type { OrderReport } from '../../domain/order';
import { TRANSITIONS, type OrderStatus } from '../../domain/order-state';
import type { OrderPatch, OrderRecord, OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from './events';
import { outcomeOfReport } from './report-event';

export interface ApplyResult {
  readonly record: OrderRecord;
  /** True when the journal was written. */
  readonly changed: boolean;
}

/**
 * Brings one journal record in line with an exchange report: the event comes from the report
 * (report-event.ts), legality from the one table (domain/order-state.ts), atomicity from the store's
 * compare-and-set. Writes only when something changes (status, filled amount, order ids), so a
 * periodic reconciliation of resting orders costs no Redis writes.
 *
 * A report the table does not allow from the stored status (e.g. an older observation arriving after
 * a newer one was journaled), or one showing less filled than the journal, is skipped, never forced.
 */
export async function applyReport(
  store: OrderStore, events: ExecutionEvents, record: OrderRecord, report: OrderReport, ocoId?: number,
): Promise<ApplyResult> {
  // Filled is judged against the amount the journal sent, never the report's own amount.
  const { event, filledAmount, filledMoney, fee } = outcomeOfReport(report, new Decimal(record.amount));
  const target = TRANSITIONS[record.status][event];
  if (target === undefined) return { record, changed: false };
  // Filled amounts only grow: a report showing less is older than the journal (a late stream push,
  // a snapshot taken before a push that was already applied). Applying it would undo a fill.
  // (The same text is the same amount: no Decimal parsed from the journal's string for a resting
  // order that traded nothing new, the common case of every settlement.)
  if (filledAmount !== record.filledAmount && report.dealStock.lessThan(record.filledAmount)) return { record, changed: false };
  const patch: { -readonly [K in keyof OrderPatch]: OrderPatch[K] } = {};
  if (record.orderId !== report.orderId) patch.orderId = report.orderId;
  if (ocoId !== undefined && record.ocoId !== ocoId) patch.ocoId = ocoId;
  if (record.filledAmount !== filledAmount) patch.filledAmount = filledAmount;
  if (record.filledMoney !== filledMoney) patch.filledMoney = filledMoney;
  if (record.fee !== fee) patch.fee = fee;
  if (target === record.status && Object.keys(patch).length === 0) return { record, changed: false };
  let updated: OrderRecord;
  try {
    updated = await store.transition(record.clientOrderId, event, patch, { expectedStatus: record.status });
  } catch (err) {
    // Someone else moved the order meanwhile (another replica's reconciler, our own submit path) to a
    // status from which this observation no longer applies: theirs is at least as new. Skip.
    if (err instanceof InvalidTransitionError || err instanceof StaleStateError) return { record, changed: false };
    throw err;
  }
  emitFor(events, record.status, updated);
  return { record: updated, changed: true };
}

/** The past-tense event for a status change. */
export function emitFor(events: ExecutionEvents, from: OrderStatus, record: OrderRecord): void {
  const cid = record.clientOrderId;
  const unsettled = (s: OrderStatus): boolean => s === 'submitted' || s === 'unknown';
  if (unsettled(from) && !unsettled(record.status) && record.status !== 'rejected') {
    safeEmit(events, { type: 'OrderAccepted', clientOrderId: cid, orderId: record.orderId, status: record.status });
  }
  if (from === record.status && record.status !== 'partially_filled') return;
  switch (record.status) {
    case 'triggered':
      safeEmit(events, { type: 'OrderTriggered', clientOrderId: cid });
      break;
    case 'partially_filled':
      safeEmit(events, { type: 'OrderPartiallyFilled', clientOrderId: cid, filledAmount: record.filledAmount });
      break;
    case 'filled':
      safeEmit(events, { type: 'OrderFilled', clientOrderId: cid, filledAmount: record.filledAmount });
      break;
    case 'canceled':
      safeEmit(events, { type: 'OrderCanceled', clientOrderId: cid, filledAmount: record.filledAmount });
      break;
    case 'rejected':
      safeEmit(events, { type: 'OrderRejected', clientOrderId: cid, reason: record.reason ?? 'rejected' });
      break;
    default:
      break;
  }
}

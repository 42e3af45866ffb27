import type { MarketName } from '../../domain/market';
import type { OrderStatus } from '../../domain/order-state';

/**
 * What the executor, settler and reconciler tell the rest of the daemon, in past tense (practice 4).
 * Metrics and logs subscribe through `ExecutionEvents`; nothing here does I/O.
 */
export type ExecutionEvent =
  /** The intent was journaled (status `submitted`) and is about to be sent. */
  | { readonly type: 'OrderSubmitted'; readonly clientOrderId: string; readonly strategy: string; readonly market: MarketName; readonly kind: string }
  /** The exchange accepted the order (it rests, or already triggered / traded). */
  | { readonly type: 'OrderAccepted'; readonly clientOrderId: string; readonly orderId: number | undefined; readonly status: OrderStatus }
  /** The exchange (or a local rule after journaling) refused it; nothing rests. */
  | { readonly type: 'OrderRejected'; readonly clientOrderId: string; readonly reason: string; readonly code?: string }
  /** A pre-trade rule refused the intent; nothing was sent (a late refusal leaves its journal record `rejected`). */
  | { readonly type: 'OrderDenied'; readonly strategy: string; readonly market: MarketName; readonly rule: string; readonly reason: string }
  | { readonly type: 'OrderTriggered'; readonly clientOrderId: string }
  | { readonly type: 'OrderPartiallyFilled'; readonly clientOrderId: string; readonly filledAmount: string }
  | { readonly type: 'OrderFilled'; readonly clientOrderId: string; readonly filledAmount: string }
  | { readonly type: 'OrderCancelRequested'; readonly clientOrderId: string }
  | { readonly type: 'OrderCanceled'; readonly clientOrderId: string; readonly filledAmount: string }
  /** The request may have reached the exchange but no definite answer came back: status `unknown`. */
  | { readonly type: 'OrderAnswerLost'; readonly clientOrderId: string; readonly error: string }
  /** A submitted/unknown order was found at the exchange and its journal status set from the report. */
  | { readonly type: 'OrderSettled'; readonly clientOrderId: string; readonly status: OrderStatus; readonly via: string }
  /**
   * An order the journal did not know was journaled from the exchange's report: one this deployment
   * minted (`strategy` = the one that placed it), or a foreign one under policy `adopt`.
   */
  | { readonly type: 'OrderAdopted'; readonly clientOrderId: string; readonly orderId: number; readonly market: MarketName; readonly strategy: string }
  /** The exchange has an order the journal does not know. `action` is what the policy did. */
  | { readonly type: 'UnknownOrderFound'; readonly market: MarketName; readonly orderId: number; readonly clientOrderId: string | undefined; readonly action: 'ignored' | 'adopted' | 'canceled' | 'failed' }
  /**
   * The exchange created the order but ignored its client order id (no echo, or an answer in another
   * wire dialect): the client canceled it by its exchange id (`canceled` says whether that worked).
   * The daemon halts trading on it: the exactly-once safety net is gone until the dialect is fixed.
   */
  | { readonly type: 'ClientOrderIdIgnored'; readonly clientOrderId: string; readonly market: MarketName; readonly canceled: boolean; readonly reason: string }
  /**
   * The exchange answered HTTP 453 "This order type is not available": its region (the EU) does not
   * offer stop-limit / OCO, or the market is not open to it yet. The order was journaled rejected;
   * the daemon halts, since every later order of the kind would be refused alike.
   */
  | { readonly type: 'OrderTypeRefused'; readonly clientOrderId: string; readonly market: MarketName; readonly kind: string; readonly reason: string }
  /**
   * An OCO whose create answer was lost (the venue's legs carry no client order id) matched more than
   * one venue order by its fingerprint, or only one that another journal record owns. Nothing is
   * guessed: the record stays unsettled and the daemon halts trading until an operator looks.
   */
  | { readonly type: 'OrderIdentityAmbiguous'; readonly clientOrderId: string; readonly market: MarketName; readonly reason: string }
  /** The exchange answered, but writing the outcome to the journal failed; the reconciler will catch up. */
  | { readonly type: 'JournalWriteFailed'; readonly clientOrderId: string; readonly error: string }
  | { readonly type: 'ReconciliationCompleted'; readonly durationMs: number; readonly checked: number; readonly discrepancies: Readonly<Record<DiscrepancyKind, number>> }
  | { readonly type: 'ReconciliationFailed'; readonly error: string };

export type ExecutionEventType = ExecutionEvent['type'];

/**
 * Differences between the journal and the exchange, by kind:
 * - `status`: a live journal entry whose exchange state moved on (fill, trigger, cancel) and was updated
 * - `settled`: a submitted/unknown entry resolved from the exchange
 * - `not_found`: a submitted/unknown entry found nowhere after it could no longer be in flight
 * - `unknown_at_exchange`: the exchange has an order the journal does not know
 * - `missing_at_exchange`: a resting journal entry found neither active nor in history
 * - `adopted`: an order this deployment minted, unknown to the journal (lost), journaled again
 */
export type DiscrepancyKind = 'status' | 'settled' | 'not_found' | 'unknown_at_exchange' | 'missing_at_exchange' | 'adopted';
export const DISCREPANCY_KINDS: readonly DiscrepancyKind[] = ['status', 'settled', 'not_found', 'unknown_at_exchange', 'missing_at_exchange', 'adopted'];

export interface ExecutionEvents {
  /** Must not throw (a listener failure must never change an order's fate); exceptions are swallowed by callers. */
  emit(event: ExecutionEvent): void;
}

export const NO_EVENTS: ExecutionEvents = { emit: () => undefined };

/** Keeps every event in memory (tests, benchmarks). */
export class RecordingEvents implements ExecutionEvents {
  readonly events: ExecutionEvent[] = [];
  emit(event: ExecutionEvent): void {
    this.events.push(event);
  }
  ofType<T extends ExecutionEventType>(type: T): Extract<ExecutionEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<ExecutionEvent, { type: T }> => e.type === type);
  }
}

/** Calls `events.emit` and swallows a listener's exception. */
export function safeEmit(events: ExecutionEvents, event: ExecutionEvent): void {
  try {
    events.emit(event);
  } catch {
    // a broken listener (metrics, logs) must not turn a placed order into a failed one
  }
}

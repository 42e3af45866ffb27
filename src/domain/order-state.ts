import { InvalidTransitionError } from './errors';

/**
 * The order state machine: the only copy of the rules. Redis Lua scripts only compare-and-set
 * (expected status -> next status); they never re-encode these rules.
 *
 * pending          intent journaled with its client order id; nothing sent yet
 * submitted        request being sent; the answer has not arrived
 * unknown          sent, but the answer was lost (timeout, dropped connection, 5xx after send):
 *                  settled only by asking the exchange, never by sending again
 * open             accepted and resting (a stop order not yet activated, or a plain limit)
 * triggered        stop activated: now a resting limit order
 * partially_filled some of it executed
 * cancel_pending   our cancel request is in flight
 * filled, canceled, rejected: final
 */
export const ORDER_STATUSES = [
  'pending', 'submitted', 'unknown', 'open', 'triggered', 'partially_filled', 'cancel_pending',
  'filled', 'canceled', 'rejected',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_EVENTS = [
  'send', 'accept', 'reject', 'lose_answer', 'trigger', 'fill_partially', 'fill', 'request_cancel', 'cancel', 'not_found',
] as const;
export type OrderEventType = (typeof ORDER_EVENTS)[number];

type Table = { readonly [S in OrderStatus]: Partial<Readonly<Record<OrderEventType, OrderStatus>>> };

export const TRANSITIONS: Table = {
  pending: {
    send: 'submitted',
    // refused before anything left the process (lease lost, risk re-check, local validation)
    reject: 'rejected',
    // abandoned before sending (e.g. found pending at start-up after its candle went stale)
    cancel: 'canceled',
  },
  submitted: {
    accept: 'open',
    // the answer can already show progress: the stop fired or the order traded on arrival
    trigger: 'triggered',
    fill_partially: 'partially_filled',
    fill: 'filled',
    reject: 'rejected',
    lose_answer: 'unknown',
    // a start-up reconciliation can find it already canceled in history
    cancel: 'canceled',
    // found nowhere at the exchange after the request could no longer be in flight
    not_found: 'rejected',
  },
  unknown: {
    accept: 'open',
    trigger: 'triggered',
    fill_partially: 'partially_filled',
    fill: 'filled',
    cancel: 'canceled',
    reject: 'rejected',
    // neither active nor in history once the request can no longer be in flight: it was never created
    not_found: 'rejected',
  },
  open: {
    accept: 'open', // a repeated observation of the same state is not an error
    trigger: 'triggered',
    fill_partially: 'partially_filled',
    fill: 'filled',
    request_cancel: 'cancel_pending',
    cancel: 'canceled',
  },
  triggered: {
    trigger: 'triggered',
    fill_partially: 'partially_filled',
    fill: 'filled',
    request_cancel: 'cancel_pending',
    cancel: 'canceled',
  },
  partially_filled: {
    fill_partially: 'partially_filled',
    fill: 'filled',
    request_cancel: 'cancel_pending',
    cancel: 'canceled',
  },
  cancel_pending: {
    cancel: 'canceled',
    // the venue can fill while our cancel is in flight
    fill: 'filled',
    fill_partially: 'partially_filled',
    // the cancel failed and the order is still resting
    accept: 'open',
    trigger: 'triggered',
  },
  // the venue can fill while our cancel is in flight; history is the final word
  canceled: { cancel: 'canceled', fill: 'filled' },
  filled: { fill: 'filled' },
  rejected: { reject: 'rejected' },
};

export const FINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(['filled', 'canceled', 'rejected']);
/** Statuses in which an order may rest at the exchange (counts toward open-order limits and reconciliation). */
export const LIVE_STATUSES: ReadonlySet<OrderStatus> = new Set([
  'submitted', 'unknown', 'open', 'triggered', 'partially_filled', 'cancel_pending',
]);

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}

export function canTransition(from: OrderStatus, event: OrderEventType): boolean {
  return TRANSITIONS[from][event] !== undefined;
}

/** The status after `event`; throws InvalidTransitionError for a pair the table does not list. */
export function nextStatus(from: OrderStatus, event: OrderEventType): OrderStatus {
  const to = TRANSITIONS[from][event];
  if (to === undefined) {
    throw new InvalidTransitionError(`order event "${event}" is not allowed in status "${from}"`, { from, event });
  }
  return to;
}

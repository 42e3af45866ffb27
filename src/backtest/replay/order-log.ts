import { Decimal } from '../../domain/decimal';
import { ExchangeRejectedError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { OrderSide } from '../../domain/order';
import type { SubmitResult } from '../../execution/orders/executor';
import { exchangeClientOrderId } from '../../execution/journal/oco-ids';
import type { OrderRecord } from '../../store/order-store-port';
import type { StampedIntent } from '../../strategy/intent-validation';
import type { StopLimitIntent } from '../../domain/intent';
import type { TrailingLegPlacement, TrailingStopRecord } from '../../store/trailing-store-port';

/** What happened to one intent (the order log of the run; the parity test compares it with paper mode). */
export interface OrderLogEntry {
  /** Market clock (Unix s) when the intent was handled. */
  readonly time: number;
  readonly candleTime: number;
  readonly strategy: string;
  readonly market: MarketName;
  /** The intent's kind; each leg a trailing stop places is an entry of kind `trailing_stop` (leg 0 is the intent's). */
  readonly kind: 'stop_limit' | 'oco' | 'cancel' | 'trailing_stop';
  readonly clientOrderId: string | undefined;
  readonly side?: OrderSide | undefined;
  /** Rounded values, as sent. */
  readonly amount?: Decimal | undefined;
  readonly price?: Decimal | undefined;
  readonly activationPrice?: Decimal | undefined;
  readonly stopLimitPrice?: Decimal | undefined;
  /**
   * placed / canceled: done; denied: a pre-trade rule (no order); rejected: the exchange said no;
   * existing: cancel of a finished order.
   */
  readonly outcome: 'placed' | 'canceled' | 'denied' | 'rejected' | 'existing';
  /** denied: the pre-trade rule; rejected: the error code (TB_ERR_...). */
  readonly rule?: string | undefined;
  /** Why, in words; for a rejection the exchange's message with its field errors. */
  readonly reason?: string | undefined;
  /** rejected: the venue's error code (exchange-api-extra §3), e.g. 152. */
  readonly venueCode?: number | undefined;
}

/**
 * The log entry of one intent from what the executor did with it (`time`: market clock, Unix s).
 * Every entry is one object literal of the same shape (no spreads): 21 k of them a year for a busy
 * strategy, and spreading objects of varying shapes cost ~10 µs each.
 */
export function orderLogEntry(stamped: StampedIntent, result: SubmitResult, time: number): OrderLogEntry {
  const intent = stamped.intent;
  const entry = (fields: Omit<OrderLogEntry, 'time' | 'candleTime' | 'strategy' | 'market' | 'kind'>): OrderLogEntry => ({
    time, candleTime: stamped.candleTime, strategy: stamped.strategy, market: intent.market, kind: intent.kind,
    clientOrderId: fields.clientOrderId, side: fields.side, amount: fields.amount, price: fields.price,
    activationPrice: fields.activationPrice, stopLimitPrice: fields.stopLimitPrice,
    outcome: fields.outcome, rule: fields.rule, reason: fields.reason, venueCode: fields.venueCode,
  });
  // A refusal by the exchange (or an answer that never came, which the in-process exchange cannot lose).
  const refusal = (r: Extract<SubmitResult, { outcome: 'rejected' | 'unknown' }>) => {
    const err = r.error;
    return { rule: err?.code ?? r.outcome, reason: err?.message ?? r.reason, venueCode: err instanceof ExchangeRejectedError ? err.venueCode : undefined };
  };
  if (intent.kind === 'cancel') {
    const clientOrderId = intent.clientOrderId;
    if (result.outcome === 'existing' || result.outcome === 'canceled') return entry({ clientOrderId, outcome: result.outcome });
    if (result.outcome === 'denied') return entry({ clientOrderId, outcome: 'denied', rule: result.rule, reason: result.reason });
    if (!('reason' in result)) return entry({ clientOrderId, outcome: 'canceled' });
    return entry({ clientOrderId, outcome: 'rejected', ...refusal(result) });
  }
  const side = intent.side;
  if (result.outcome === 'denied') {
    const price = intent.kind === 'trailing_stop' ? undefined : intent.price;
    return entry({ clientOrderId: undefined, side, amount: intent.amount, price, outcome: 'denied', rule: result.rule, reason: result.reason });
  }
  // The journal holds what was sent (rounded); an OCO's stop-loss leg carries the exchange's id.
  const sent = result.records.find((r) => r.kind !== 'oco_tp') as OrderRecord;
  const order = {
    clientOrderId: exchangeClientOrderId(sent), side, amount: new Decimal(sent.amount), price: new Decimal(sent.price),
    activationPrice: dec(sent.activationPrice), stopLimitPrice: dec(sent.stopLimitPrice),
  };
  if (result.outcome === 'accepted') return entry({ ...order, outcome: 'placed' });
  if (!('reason' in result)) {
    // The journal already had this intent (same strategy, market, candle and tag): nothing was sent again.
    return entry({ ...order, outcome: 'denied', rule: 'duplicate_intent', reason: `intent already journaled as ${order.clientOrderId}: not sent again` });
  }
  return entry({ ...order, outcome: 'rejected', ...refusal(result) });
}

function dec(value: string | undefined): Decimal | undefined {
  return value === undefined ? undefined : new Decimal(value);
}

/**
 * The log entry of a trailing stop's leg placed by a move (leg 0 is the intent's own entry): one entry
 * per leg, under its own client order id, as the order journal has them (the drift check compares by id).
 */
export function trailingLegEntry(e: { readonly record: TrailingStopRecord; readonly leg: TrailingLegPlacement; readonly result: SubmitResult }, time: number): OrderLogEntry {
  const r = e.record;
  const intent: StopLimitIntent = {
    kind: 'stop_limit', market: r.market, side: r.side, amount: new Decimal(r.remaining), price: new Decimal(e.leg.price), activationPrice: new Decimal(e.leg.trigger),
  };
  return { ...orderLogEntry({ strategy: r.strategy, interval: r.interval, candleTime: r.candleTime, intent }, e.result, time), kind: 'trailing_stop' };
}

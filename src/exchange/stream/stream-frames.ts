import { z } from 'zod';
import { Decimal } from '../../domain/decimal';
import { MARKET_NAME, type MarketName } from '../../domain/market';
import type { OrderReport, OrderSide } from '../../domain/order';

/**
 * The venue's WebSocket frames as the daemon reads them (websocket/overview.mdx, asyncapi/*). The
 * stream is never trusted: every frame is parsed here with zod (shape, types, bounded sizes) and a
 * frame that does not parse is reported as invalid, counted by the supervisor and dropped. Extra
 * fields are allowed (the venue adds fields without notice); missing or mistyped ones are not.
 */

/** Longest frame read at all (the socket's maxPayload): larger ones close the connection. */
export const MAX_FRAME_BYTES = 1 << 20;

const decimalText = z.string().max(64).regex(/^(?:\d+\.?\d*|\.\d+)$/);
const market = z.string().regex(MARKET_NAME);
const id = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const answer = z.object({
  id: z.number().int(),
  result: z.unknown(),
  error: z.object({ code: z.number().int(), message: z.string().max(1000) }).nullable(),
});
const push = z.object({ id: z.null(), method: z.string().max(64), params: z.array(z.unknown()).max(10_000) });

export type StreamFrame =
  | { readonly kind: 'answer'; readonly id: number; readonly result: unknown; readonly error: { readonly code: number; readonly message: string } | null }
  | { readonly kind: 'push'; readonly method: string; readonly params: readonly unknown[] }
  | { readonly kind: 'invalid'; readonly reason: string };

/** One text frame: an answer to one of our requests, a push, or invalid (with why, never the frame itself). */
export function parseStreamFrame(text: string): StreamFrame {
  if (text.length > MAX_FRAME_BYTES) return { kind: 'invalid', reason: 'frame too large' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  const p = push.safeParse(value);
  if (p.success) return { kind: 'push', method: p.data.method, params: p.data.params };
  const a = answer.safeParse(value);
  if (a.success) return { kind: 'answer', id: a.data.id, result: a.data.result, error: a.data.error };
  return { kind: 'invalid', reason: 'neither an answer nor a push' };
}

// ---- account pushes ----

/** ordersPending_update event ids (orders_pending.yaml). */
export const ORDER_EVENT_IDS = { new: 1, update: 2, finished: 3 } as const;
export type OrderEventId = 1 | 2 | 3;

const wsOrder = z.object({
  id,
  market,
  type: z.number().int(),
  side: z.union([z.literal(1), z.literal(2)]),
  amount: decimalText,
  left: decimalText,
  deal_stock: decimalText,
  deal_money: decimalText,
  deal_fee: decimalText,
  price: decimalText.optional(),
  ctime: z.number().nonnegative().optional(),
  mtime: z.number().nonnegative().optional(),
  client_order_id: z.string().max(255).optional(),
  status: z.string().max(64).optional(),
});

/** Stop types of orders_pending.yaml "Stop Order Activation" (spot 3, 4; margin 9, 10). */
const STOP_TYPES: ReadonlySet<number> = new Set([3, 4, 9, 10]);
const TYPE_TEXT: Readonly<Record<number, string>> = { 1: 'limit', 2: 'market', 3: 'stop limit', 4: 'stop market', 7: 'margin limit', 9: 'margin stop limit', 10: 'margin stop market' };

export interface OrderEvent {
  readonly eventId: OrderEventId;
  /** The order as the push shows it, in the report shape the journal updater reads. */
  readonly report: OrderReport;
  /** Type 3, 4, 9 or 10: a second event 1 is its activation, which the push cannot tell from a duplicate. */
  readonly isStop: boolean;
  /** `mtime` after `ctime`: the order changed since its creation (an event 1 showing it is an activation). */
  readonly changedSinceCreation: boolean;
}

const orderPush = z.tuple([z.union([z.literal(1), z.literal(2), z.literal(3)]), wsOrder]);

/**
 * `ordersPending_update` params `[event_id, order]`. Event 3 (finished) does not say whether the
 * order was cancelled or executed: executed means nothing left and the whole amount traded, else it
 * is read as cancelled (status `CANCELED`), so outcomeOfReport (execution/journal/report-event.ts) maps it.
 */
export function parseOrderEvent(params: readonly unknown[]): OrderEvent | undefined {
  const r = orderPush.safeParse(params);
  if (!r.success) return undefined;
  const [eventId, o] = r.data;
  const amount = new Decimal(o.amount);
  const left = new Decimal(o.left);
  const dealStock = new Decimal(o.deal_stock);
  const executed = left.lessThanOrEqualTo(0) && dealStock.greaterThanOrEqualTo(amount);
  const status = eventId === 3 ? (executed ? 'FILLED' : 'CANCELED') : (o.status ?? 'OPEN');
  const side: OrderSide = o.side === 1 ? 'sell' : 'buy';
  const report: OrderReport = {
    orderId: o.id, clientOrderId: o.client_order_id === undefined || o.client_order_id === '' ? undefined : o.client_order_id,
    market: o.market, side, type: TYPE_TEXT[o.type] ?? `type ${o.type}`, timestamp: o.ctime ?? 0,
    amount, left, dealStock, dealMoney: new Decimal(o.deal_money), dealFee: new Decimal(o.deal_fee),
    price: o.price === undefined ? undefined : new Decimal(o.price),
    activationPrice: undefined, activationCondition: undefined, activated: undefined, status,
  };
  const changedSinceCreation = o.ctime !== undefined && o.mtime !== undefined && o.mtime > o.ctime;
  return { eventId, report, isStop: STOP_TYPES.has(o.type), changedSinceCreation };
}

export interface DealEvent {
  readonly dealId: number;
  readonly market: MarketName;
  readonly orderId: number;
  readonly amount: Decimal;
  readonly clientOrderId: string | undefined;
}

const dealPush = z.tuple([id, z.number(), market, id, decimalText, decimalText, decimalText, z.string().max(255), z.union([z.literal(1), z.literal(2)]), z.union([z.literal(1), z.literal(2)]), z.string().max(32)]);

/** `deals_update` params: the 11-element tuple of deals.yaml (id, time, market, order id, price, amount, fee, client id, side, role, fee asset). */
export function parseDealEvent(params: readonly unknown[]): DealEvent | undefined {
  const r = dealPush.safeParse(params);
  if (!r.success) return undefined;
  const [dealId, , mk, orderId, , amount, , cid] = r.data;
  return { dealId, market: mk, orderId, amount: new Decimal(amount), clientOrderId: cid === '' ? undefined : cid };
}

// ---- market pushes ----

export interface CandleTick {
  /** Open time of the candle being built, Unix seconds. */
  readonly time: number;
  readonly market: MarketName;
}

const candleRow = z.tuple([z.number().int().nonnegative(), decimalText, decimalText, decimalText, decimalText, decimalText, decimalText, market]);

/** `candles_update` params: `[[time, open, close, high, low, volume, deal, market], ...]` (kline.yaml). Only time and market are read: REST klines are the source of closed bars. */
export function parseCandleTicks(params: readonly unknown[]): CandleTick[] | undefined {
  const r = z.array(candleRow).min(1).max(100).safeParse(params);
  if (!r.success) return undefined;
  return r.data.map((row) => ({ time: row[0], market: row[7] }));
}

/** `lastprice_update` params: `[market, price]` (lastprice.yaml). A zero price is not a price. */
export function parseLastPrice(params: readonly unknown[]): { readonly market: MarketName; readonly price: Decimal } | undefined {
  const r = z.tuple([market, decimalText]).safeParse(params);
  if (!r.success) return undefined;
  const price = new Decimal(r.data[1]);
  return price.greaterThan(0) ? { market: r.data[0], price } : undefined;
}

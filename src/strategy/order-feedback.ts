import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { OrderSide } from '../domain/order';
import type { Portfolio, PositionView } from '../portfolio/portfolio';

export type { PositionView } from '../portfolio/portfolio';

/** Which leg of an OCO an event is about (absent for a stop-limit order). */
export type OcoLeg = 'take_profit' | 'stop_loss';

/**
 * What happened to this strategy's orders on this market since its last `onCandle` call
 * (`ctx.events`, oldest first). The same shape in backtests, paper and live. An OCO is named by
 * the client order id its `ctx.openOrders` entry carries.
 * - `filled` / `partially_filled`: one execution; `amount` is what this one executed at `price`
 *   (the average price of the execution), `filledAmount` the order's (leg's) total so far;
 * - `cancelled`: the order ended without executing fully (your cancel, the kill-switch, the venue);
 *   the leg of an OCO cancelled because its other leg executed is not reported (the fill is);
 * - `rejected`: the exchange refused the order; nothing rests;
 * - `denied`: a pre-trade rule refused the intent (`rule`: `balance`, `max_open_orders`,
 *   `trading_state`, `cancel_unknown`, ...); nothing was sent.
 */
export type OrderEvent =
  | {
      readonly type: 'filled' | 'partially_filled';
      readonly clientOrderId: string;
      readonly side: OrderSide;
      readonly amount: Decimal;
      readonly price: Decimal;
      readonly fee: Decimal;
      readonly filledAmount: Decimal;
      readonly leg?: OcoLeg | undefined;
    }
  | { readonly type: 'cancelled'; readonly clientOrderId: string; readonly filledAmount: Decimal }
  | { readonly type: 'rejected'; readonly clientOrderId: string; readonly reason: string }
  | { readonly type: 'denied'; readonly rule: string; readonly reason: string };

/**
 * One execution as the recorder saw it (deal in a backtest, journal fill delta in the daemon): the fill
 * event's fields (`clientOrderId` is the id of the order's `ctx.openOrders` entry, an OCO's for both legs)
 * and where it belongs.
 */
export interface FillInput extends Omit<Extract<OrderEvent, { type: 'filled' | 'partially_filled' }>, 'type'> {
  readonly strategy: string;
  readonly market: MarketName;
  /** Nothing of the order (leg) is left. */
  readonly complete: boolean;
  /** When it executed (Unix ms), for today's PnL; default now. */
  readonly timeMs?: number | undefined;
}

export interface CancelInput {
  readonly strategy: string;
  readonly market: MarketName;
  readonly clientOrderId: string;
  readonly filledAmount: Decimal;
  readonly leg?: OcoLeg | undefined;
  /** The venue ended this leg because the other one triggered or executed (the OCO rule): not news. */
  readonly byOcoRule?: boolean | undefined;
}

/** An OCO leg's cancel, told or not when taken (see `cancelled`). */
type Queued = OrderEvent | { readonly event: OrderEvent & { type: 'cancelled' }; readonly leg: OcoLeg };

/** Events kept per (strategy, market) while it does not run (paused): the oldest go first. */
const MAX_EVENTS = 1000;
/** OCO ids remembered for the leg rule below; oldest forgotten first. */
const MAX_OCOS = 10_000;
const NO_EVENTS: readonly OrderEvent[] = Object.freeze([]);

/**
 * Collects what strategies are told about their orders: the events since their last call, and every
 * fill into the portfolio (their positions and PnL). One class for the backtest and the daemon, which
 * feed it from their own sources (the engine's deals; the journal's fills), so the shape and the rules
 * cannot drift apart. Pure: no I/O.
 */
export class OrderFeedback {
  private readonly queues = new Map<string, Queued[]>();
  /** OCO id -> legs that triggered or executed: a cancel of the OTHER leg is the OCO rule, not news. */
  private readonly ocoFills = new Map<string, Set<OcoLeg>>();
  /** OCO ids whose cancellation was already reported (both legs end cancelled: one event). */
  private readonly ocoCancelled = new Map<string, true>();

  constructor(readonly portfolio: Portfolio) {}

  fill(f: FillInput): void {
    const key = slotKey(f.strategy, f.market);
    if (f.leg !== undefined) remember(this.ocoFills, f.clientOrderId, () => new Set<OcoLeg>()).add(f.leg);
    this.portfolio.applyFill(f);
    this.push(key, {
      type: f.complete ? 'filled' : 'partially_filled', clientOrderId: f.clientOrderId, side: f.side, amount: f.amount,
      price: f.price, fee: f.fee, filledAmount: f.filledAmount, ...(f.leg === undefined ? {} : { leg: f.leg }),
    });
  }

  /** An OCO's stop-loss leg triggered: the venue may end the take-profit leg for it (not news). */
  triggered(clientOrderId: string, leg: OcoLeg): void {
    remember(this.ocoFills, clientOrderId, () => new Set<OcoLeg>()).add(leg);
  }

  cancelled(c: CancelInput): void {
    if (c.byOcoRule === true) return;
    const event: OrderEvent = { type: 'cancelled', clientOrderId: c.clientOrderId, filledAmount: c.filledAmount };
    // An OCO leg's cancel is judged when taken: the daemon may journal it before the other leg's fill.
    this.push(slotKey(c.strategy, c.market), c.leg === undefined ? event : { event, leg: c.leg });
  }

  rejected(strategy: string, market: MarketName, clientOrderId: string, reason: string): void {
    this.push(slotKey(strategy, market), { type: 'rejected', clientOrderId, reason });
  }

  denied(strategy: string, market: MarketName, rule: string, reason: string): void {
    this.push(slotKey(strategy, market), { type: 'denied', rule, reason });
  }

  /** The events since the last take of this (strategy, market), oldest first; the queue is emptied. */
  take(strategy: string, market: MarketName): readonly OrderEvent[] {
    if (this.queues.size === 0) return NO_EVENTS;
    const key = slotKey(strategy, market);
    const queued = this.queues.get(key);
    if (queued === undefined) return NO_EVENTS;
    this.queues.delete(key);
    const out: OrderEvent[] = [];
    for (const q of queued) {
      if (!('leg' in q && 'event' in q)) {
        out.push(q);
        continue;
      }
      const id = q.event.clientOrderId;
      const other: OcoLeg = q.leg === 'take_profit' ? 'stop_loss' : 'take_profit';
      if (this.ocoFills.get(id)?.has(other) === true || this.ocoCancelled.has(id)) continue;
      remember(this.ocoCancelled, id, () => true as const);
      out.push(q.event);
    }
    return out;
  }

  /** The position (the portfolio's), its unrealised PnL valued at `lastPrice`. */
  position(strategy: string, market: MarketName, lastPrice: Decimal | undefined): PositionView {
    return this.portfolio.position(strategy, market, lastPrice);
  }

  /**
   * A fill from before (the journal at start-up): the position moves, nothing is told, and its PnL is
   * not counted as today's (the restarted daemon does not know when it was realised).
   */
  seedFill(f: FillInput): void {
    if (f.leg !== undefined) remember(this.ocoFills, f.clientOrderId, () => new Set<OcoLeg>()).add(f.leg);
    this.portfolio.applyFill({
      strategy: f.strategy, market: f.market, side: f.side, amount: f.amount, price: f.price, fee: f.fee, replayed: true, clientOrderId: f.clientOrderId, filledAmount: f.filledAmount,
    });
  }

  private push(key: string, event: Queued): void {
    const list = this.queues.get(key);
    if (list === undefined) {
      this.queues.set(key, [event]);
      return;
    }
    if (list.length >= MAX_EVENTS) list.shift();
    list.push(event);
  }
}

function slotKey(strategy: string, market: MarketName): string {
  return `${strategy}|${market}`;
}

/** Map get-or-create with a bound: the oldest entry goes when full (Maps iterate in insertion order). */
function remember<V>(map: Map<string, V>, key: string, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= MAX_OCOS) map.delete(map.keys().next().value as string);
    value = create();
    map.set(key, value);
  }
  return value;
}

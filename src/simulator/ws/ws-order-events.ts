import type { SimEngine } from '../engine/sim-engine';
import type { EngineEvent, SimOrder } from '../engine/types';
import { wsDealUpdate, wsOrder } from './ws-wire-format';

/** One push for the connections of `apiKey` subscribed to `channel` on `market`. */
export interface AccountPush {
  readonly apiKey: string;
  readonly market: string;
  readonly channel: 'ordersPending' | 'deals';
  readonly params: readonly unknown[];
}

/** ordersPending_update event ids (orders_pending.yaml): 1 new, 2 update, 3 finished (cancelled or executed). */
export const ORDER_EVENT = { new: 1, update: 2, finished: 3 } as const;

/**
 * Turns the engine's order creations and events into the venue's `ordersPending_update` and
 * `deals_update` pushes, numbering events as websocket/account-streams/orders-pending.mdx documents:
 * - a new order sends 1; a fill that leaves some of it sends 2; a fill that completes it or a cancel sends 3;
 * - an order that fills completely on arrival sends ONLY 3: event 1 of a new order is held until the
 *   placement call is over (a microtask), and dropped when the order finished meanwhile; an order that
 *   filled in part on arrival sends one 1 showing that fill;
 * - a stop's trigger sends a second 1 with the same id (no 3 before it).
 * Each push carries the order as it is at that moment.
 */
export class OrderEventStream {
  /** Orders created in the running engine call whose event 1 is not sent yet. */
  private readonly fresh = new Map<number, SimOrder>();
  private flushQueued = false;

  /**
   * `listening`: whether any connection is open. Without one nothing is built: the HTTP-only uses of
   * the simulator (paper soak, simulator bench) keep paying nothing per order event.
   */
  constructor(engine: SimEngine, private readonly emit: (push: AccountPush) => void, listening: () => boolean) {
    engine.onOrderPlaced((order) => {
      if (listening()) this.placed(order);
    });
    engine.onEvent((event) => {
      if (listening() || this.fresh.size > 0) this.onEvent(event);
    });
  }

  private placed(order: SimOrder): void {
    this.fresh.set(order.id, order);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  private onEvent(event: EngineEvent): void {
    const order = event.order;
    if (event.type === 'filled') {
      this.emit({ apiKey: order.apiKey, market: order.market, channel: 'deals', params: wsDealUpdate(event.deal) });
      const finished = order.status !== 'OPEN';
      if (this.fresh.has(order.id)) {
        // Filled on arrival: completely -> only 3; in part -> the held event 1 will show it.
        if (finished) {
          this.fresh.delete(order.id);
          this.order(ORDER_EVENT.finished, order);
        }
        return;
      }
      this.order(finished ? ORDER_EVENT.finished : ORDER_EVENT.update, order);
      return;
    }
    this.sendHeldNew(order);
    this.order(event.type === 'triggered' ? ORDER_EVENT.new : ORDER_EVENT.finished, order);
  }

  private sendHeldNew(order: SimOrder): void {
    if (!this.fresh.delete(order.id)) return;
    this.order(ORDER_EVENT.new, order);
  }

  private flush(): void {
    this.flushQueued = false;
    const held = [...this.fresh.values()];
    this.fresh.clear();
    for (const order of held) this.order(ORDER_EVENT.new, order);
  }

  private order(eventId: number, order: SimOrder): void {
    this.emit({ apiKey: order.apiKey, market: order.market, channel: 'ordersPending', params: [eventId, wsOrder(order)] });
  }
}

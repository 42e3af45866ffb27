import { StoreUnavailableError } from '../domain/errors';
import type { MarketName } from '../domain/market';
import type { OrderEventType } from '../domain/order-state';
import type { Lease } from './lease-store-port';
import type {
  LiveCount, NewOrderRecord, OrderPatch, OrderRecord, OrderStore, RecordResult, TransitionOptions,
} from './order-store-port';

export interface StoreObserver {
  /** A status change was written (creation counts as pending -> submitted or null -> pending). */
  onTransition(record: OrderRecord, from: string, to: string): void;
  /** Every store call: ok, or failed with StoreUnavailableError (Redis down). */
  onStoreHealth(up: boolean): void;
}

/**
 * The order journal with its transitions observed (tradebot_order_transitions_total, the log line
 * per transition, tradebot_redis_up). A decorator, so the executor, settler and reconciler all go
 * through it without knowing; the history entry a write returns tells from -> to, so no extra read.
 */
export class MeteredOrderStore implements OrderStore {
  constructor(private readonly inner: OrderStore, private readonly observer: StoreObserver) {}

  async recordIntent(record: NewOrderRecord): Promise<RecordResult> {
    const result = await this.watch(() => this.inner.recordIntent(record));
    if (result.created) this.observer.onTransition(result.record, 'none', result.record.status);
    return result;
  }

  async recordSubmit(record: NewOrderRecord, lease: Lease): Promise<RecordResult> {
    const result = await this.watch(() => this.inner.recordSubmit(record, lease));
    if (result.created) this.observer.onTransition(result.record, 'pending', result.record.status);
    return result;
  }

  async transition(clientOrderId: string, event: OrderEventType, patch?: OrderPatch, options?: TransitionOptions): Promise<OrderRecord> {
    const record = await this.watch(() => this.inner.transition(clientOrderId, event, patch, options));
    const last = record.history.at(-1);
    const from = last?.from ?? 'none';
    if (last !== undefined && from !== last.to) this.observer.onTransition(record, from, last.to);
    return record;
  }

  get(clientOrderId: string): Promise<OrderRecord | undefined> {
    return this.watch(() => this.inner.get(clientOrderId));
  }
  listLive(): Promise<OrderRecord[]> {
    return this.watch(() => this.inner.listLive());
  }
  listByStrategy(strategy: string, limit?: number): Promise<OrderRecord[]> {
    return this.watch(() => this.inner.listByStrategy(strategy, limit));
  }
  listAll(limit: number): Promise<OrderRecord[]> {
    return this.watch(() => this.inner.listAll(limit));
  }
  countLive(strategy: string, market: MarketName): Promise<number> {
    return this.watch(() => this.inner.countLive(strategy, market));
  }
  liveCounts(): Promise<LiveCount[]> {
    return this.watch(() => this.inner.liveCounts());
  }

  private async watch<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn();
      this.observer.onStoreHealth(true);
      return out;
    } catch (err) {
      if (err instanceof StoreUnavailableError) this.observer.onStoreHealth(false);
      throw err;
    }
  }
}

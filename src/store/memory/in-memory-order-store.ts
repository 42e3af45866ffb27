import { SystemClock, type Clock } from '../../core/clock';
import { InvalidTransitionError, LeaseLostError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import { LIVE_STATUSES, nextStatus, type OrderEventType, type OrderStatus } from '../../domain/order-state';
import { StoreKeys } from '../keys';
import type { Lease } from '../lease-store-port';
import { historyEntry, newRecordFields, parseRecord, patchFields, type RecordFields } from '../order-record';
import {
  HISTORY_MAX,
  type LiveCount,
  type NewOrderRecord,
  type OrderPatch,
  type OrderRecord,
  type OrderStore,
  type RecordResult,
  type TransitionOptions,
} from '../order-store-port';
import type { InMemoryLeaseStore } from './in-memory-lease-store';

interface Stored {
  fields: RecordFields;
  history: string[];
}

/**
 * The order journal in one process (paper mode without Redis, tests). Same record format and
 * helpers as RedisOrderStore and the same contract tests. Each method reads and writes without an
 * await in between, which makes every step atomic here, as the Lua scripts make it in Redis.
 * Fencing asks the InMemoryLeaseStore given to the constructor.
 */
export class InMemoryOrderStore implements OrderStore {
  private readonly orders = new Map<string, Stored>();

  constructor(
    private readonly leases: InMemoryLeaseStore,
    private readonly clock: Clock = new SystemClock(),
    private readonly historyMax: number = HISTORY_MAX,
  ) {}

  async recordIntent(input: NewOrderRecord): Promise<RecordResult> {
    return this.record(input, undefined);
  }

  async recordSubmit(input: NewOrderRecord, lease: Lease): Promise<RecordResult> {
    if (lease.strategy !== input.strategy || lease.market !== input.market) {
      throw new LeaseLostError('lease is for another strategy or market', { clientOrderId: input.clientOrderId });
    }
    return this.record(input, lease);
  }

  private record(input: NewOrderRecord, lease: Lease | undefined): RecordResult {
    const now = this.clock.nowMs();
    const fields = newRecordFields(input, now);
    if (lease) this.checkFence(lease, fields['scope'] as string, input.clientOrderId);
    const existing = this.orders.get(input.clientOrderId);
    if (existing) return { created: false, record: parseRecord(existing.fields, existing.history) };
    const status: OrderStatus = lease ? nextStatus('pending', 'send') : 'pending';
    fields['status'] = status;
    if (lease) fields['fencingToken'] = String(lease.token);
    const entry = lease ? historyEntry(now, 'send', 'pending', status) : historyEntry(now, 'record', null, status);
    const stored: Stored = { fields, history: [entry] };
    this.orders.set(input.clientOrderId, stored);
    return { created: true, record: parseRecord(stored.fields, stored.history) };
  }

  async transition(clientOrderId: string, event: OrderEventType, patch: OrderPatch = {}, options: TransitionOptions = {}): Promise<OrderRecord> {
    if (event === 'send' && !options.lease) {
      throw new LeaseLostError('sending requires the lease of the order\'s strategy and market', { clientOrderId });
    }
    const stored = this.orders.get(clientOrderId);
    if (!stored) throw new InvalidTransitionError(`no journal record for client order id ${clientOrderId}`, { clientOrderId, from: null });
    if (options.lease) this.checkFence(options.lease, stored.fields['scope'] as string, clientOrderId);
    // One process: the stored status is the truth; a caller's expectedStatus is only a hint.
    const from = stored.fields['status'] as OrderStatus;
    const to = nextStatus(from, event);
    const now = this.clock.nowMs();
    Object.assign(stored.fields, patchFields(patch, now), { status: to });
    stored.history.push(historyEntry(now, event, from, to, patch.reason));
    if (stored.history.length > this.historyMax) stored.history.splice(0, stored.history.length - this.historyMax);
    return parseRecord(stored.fields, stored.history);
  }

  private checkFence(lease: Lease, scope: string, clientOrderId: string): void {
    const current = this.leases.currentHolder(StoreKeys.scopeId(lease.strategy, lease.market));
    if (current?.token !== lease.token || current.owner !== lease.owner || scope !== StoreKeys.scopeId(lease.strategy, lease.market)) {
      throw new LeaseLostError('this replica does not hold the lease (fencing token superseded or expired)', {
        clientOrderId, token: lease.token, currentToken: current?.token ?? '',
      });
    }
  }

  async get(clientOrderId: string): Promise<OrderRecord | undefined> {
    const stored = this.orders.get(clientOrderId);
    return stored ? parseRecord(stored.fields, stored.history) : undefined;
  }

  async listLive(): Promise<OrderRecord[]> {
    return this.all()
      .filter((r) => LIVE_STATUSES.has(r.status))
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.clientOrderId.localeCompare(b.clientOrderId));
  }

  async listByStrategy(strategy: string, limit = 100): Promise<OrderRecord[]> {
    return this.newestFirst(this.all().filter((r) => r.strategy === strategy)).slice(0, limit);
  }

  async listAll(limit: number): Promise<OrderRecord[]> {
    return this.newestFirst(this.all()).slice(0, Math.max(0, limit));
  }

  async countLive(strategy: string, market: MarketName): Promise<number> {
    return this.all().filter((r) => r.strategy === strategy && r.market === market && LIVE_STATUSES.has(r.status)).length;
  }

  async liveCounts(): Promise<LiveCount[]> {
    const counts = new Map<string, number>();
    for (const r of this.all()) {
      if (!LIVE_STATUSES.has(r.status)) continue;
      const id = StoreKeys.scopeId(r.strategy, r.market);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return [...counts].map(([id, count]) => ({ ...StoreKeys.parseScopeId(id), count }));
  }

  private all(): OrderRecord[] {
    return [...this.orders.values()].map((s) => parseRecord(s.fields, s.history));
  }

  /** Same order as the Redis ZREVRANGE on (createdAt, id): newest first, ties by id descending. */
  private newestFirst(records: OrderRecord[]): OrderRecord[] {
    return records.sort((a, b) => b.createdAtMs - a.createdAtMs || (a.clientOrderId < b.clientOrderId ? 1 : a.clientOrderId > b.clientOrderId ? -1 : 0));
  }
}

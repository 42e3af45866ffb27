import { SystemClock, type Clock } from '../../core/clock';
import { InvalidTransitionError, LeaseLostError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import { LIVE_STATUSES, nextStatus, type OrderEventType, type OrderStatus } from '../../domain/order-state';
import { StoreKeys } from '../keys';
import type { Lease } from '../lease-store-port';
import { journalTime, newRecordFields, parseRecord, patchFields, transitionEntry } from '../order-record';
import {
  HISTORY_MAX,
  type LiveCount,
  type NewOrderRecord,
  type OrderPatch,
  type OrderRecord,
  type OrderStore,
  type OrderTransitionEntry,
  type RecordResult,
  type TransitionOptions,
} from '../order-store-port';
import type { InMemoryLeaseStore } from './in-memory-lease-store';

interface Stored {
  /**
   * The current record, handed out as is (no copy, no parse): readonly by type, never changed in
   * place; every write replaces it. (Not Object.freeze'd: that costs microseconds per write.)
   */
  record: OrderRecord;
  /** StoreKeys.scopeId(strategy, market), computed once: fencing and the live counts use it. */
  readonly scope: string;
}

interface ScopeCount {
  readonly strategy: string;
  readonly market: MarketName;
  count: number;
}

/**
 * The order journal in one process (paper mode without Redis, tests). It passes the same contract
 * tests as RedisOrderStore and validates/normalises new records and patches with the same helpers
 * (order-record.ts); only the storage differs: the parsed record itself, built once per
 * write, so reads never parse and never copy. Like Redis it keeps a live index (ids + counts per
 * (strategy, market)), so listLive/countLive/liveCounts cost O(live orders), not O(journal).
 * Each method reads and writes without an await in between, which makes every step atomic here,
 * as the Lua scripts make it in Redis. Fencing asks the InMemoryLeaseStore given to the constructor.
 */
export class InMemoryOrderStore implements OrderStore {
  private readonly orders = new Map<string, Stored>();
  /** Ids whose status is in LIVE_STATUSES (as the Redis live SET). */
  private readonly live = new Set<string>();
  /** Live orders per scope id (as the Redis live-count HASH); a scope at 0 is removed. */
  private readonly liveByScope = new Map<string, ScopeCount>();

  constructor(
    private readonly leases: InMemoryLeaseStore,
    private readonly clock: Clock = new SystemClock(),
    /** Stamps each history entry's market time (the simulator's clock); default `clock`. */
    private readonly marketClock: Clock = clock,
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
    const at = journalTime(this.clock, this.marketClock);
    const fields = newRecordFields(input, at.atMs);
    const scope = fields['scope'] as string;
    if (lease) this.checkFence(lease, scope, input.clientOrderId);
    const existing = this.orders.get(input.clientOrderId);
    if (existing) return { created: false, record: existing.record };
    const status: OrderStatus = lease ? nextStatus('pending', 'send') : 'pending';
    fields['status'] = status;
    if (lease) fields['fencingToken'] = String(lease.token);
    const entry = lease ? transitionEntry(at, 'send', 'pending', status) : transitionEntry(at, 'record', null, status);
    const record = parseRecord(fields, []);
    // parseRecord's history is a fresh array (a map over []): ours to fill, no second record object.
    (record.history as OrderTransitionEntry[]).push(entry);
    this.orders.set(input.clientOrderId, { record, scope });
    this.index(input.clientOrderId, scope, record, undefined);
    return { created: true, record };
  }

  async transition(clientOrderId: string, event: OrderEventType, patch: OrderPatch = {}, options: TransitionOptions = {}): Promise<OrderRecord> {
    if (event === 'send' && !options.lease) {
      throw new LeaseLostError('sending requires the lease of the order\'s strategy and market', { clientOrderId });
    }
    const stored = this.orders.get(clientOrderId);
    if (!stored) throw new InvalidTransitionError(`no journal record for client order id ${clientOrderId}`, { clientOrderId, from: null });
    if (options.lease) this.checkFence(options.lease, stored.scope, clientOrderId);
    // One process: the stored status is the truth; a caller's expectedStatus is only a hint.
    const prev = stored.record;
    const from = prev.status;
    const to = nextStatus(from, event);
    const at = journalTime(this.clock, this.marketClock);
    // patchFields normalises the patch exactly as the Redis adapter stores it (decimal strings).
    const patched = patchFields(patch, at.atMs);
    const entry = transitionEntry(at, event, from, to, patch.reason);
    const history = prev.history.length >= this.historyMax
      ? [...prev.history.slice(prev.history.length - this.historyMax + 1), entry]
      : [...prev.history, entry];
    const record: OrderRecord = {
      ...prev,
      status: to,
      orderId: patch.orderId ?? prev.orderId,
      ocoId: patch.ocoId ?? prev.ocoId,
      filledAmount: patched['filledAmount'] ?? prev.filledAmount,
      filledMoney: patched['filledMoney'] ?? prev.filledMoney,
      fee: patched['fee'] ?? prev.fee,
      reason: patch.reason ?? prev.reason,
      updatedAtMs: at.atMs,
      history,
    };
    stored.record = record;
    this.index(clientOrderId, stored.scope, record, from);
    return record;
  }

  /** Keeps the live index in step with a write (from = undefined: a new record). */
  private index(id: string, scope: string, record: OrderRecord, from: OrderStatus | undefined): void {
    const wasLive = from !== undefined && LIVE_STATUSES.has(from);
    const isLive = LIVE_STATUSES.has(record.status);
    if (wasLive === isLive) return;
    let c = this.liveByScope.get(scope);
    if (isLive) {
      this.live.add(id);
      if (c === undefined) this.liveByScope.set(scope, (c = { strategy: record.strategy, market: record.market, count: 0 }));
      c.count++;
    } else {
      this.live.delete(id);
      if (c !== undefined && --c.count <= 0) this.liveByScope.delete(scope);
    }
  }

  private checkFence(lease: Lease, scope: string, clientOrderId: string): void {
    const leaseScope = StoreKeys.scopeId(lease.strategy, lease.market);
    const current = this.leases.currentHolder(leaseScope);
    if (current?.token !== lease.token || current.owner !== lease.owner || scope !== leaseScope) {
      throw new LeaseLostError('this replica does not hold the lease (fencing token superseded or expired)', {
        clientOrderId, token: lease.token, currentToken: current?.token ?? '',
      });
    }
  }

  async get(clientOrderId: string): Promise<OrderRecord | undefined> {
    return this.orders.get(clientOrderId)?.record;
  }

  async listLive(): Promise<OrderRecord[]> {
    const out: OrderRecord[] = [];
    for (const id of this.live) out.push((this.orders.get(id) as Stored).record);
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs || a.clientOrderId.localeCompare(b.clientOrderId));
  }

  async listByStrategy(strategy: string, limit = 100): Promise<OrderRecord[]> {
    return this.newestFirst(this.all().filter((r) => r.strategy === strategy)).slice(0, limit);
  }

  async listAll(limit: number): Promise<OrderRecord[]> {
    return this.newestFirst(this.all()).slice(0, Math.max(0, limit));
  }

  async countLive(strategy: string, market: MarketName): Promise<number> {
    return this.liveByScope.get(StoreKeys.scopeId(strategy, market))?.count ?? 0;
  }

  async liveCounts(): Promise<LiveCount[]> {
    return [...this.liveByScope.values()].map((c) => ({ strategy: c.strategy, market: c.market, count: c.count }));
  }

  private all(): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const s of this.orders.values()) out.push(s.record);
    return out;
  }

  /** Same order as the Redis ZREVRANGE on (createdAt, id): newest first, ties by id descending. */
  private newestFirst(records: OrderRecord[]): OrderRecord[] {
    return records.sort((a, b) => b.createdAtMs - a.createdAtMs || (a.clientOrderId < b.clientOrderId ? 1 : a.clientOrderId > b.clientOrderId ? -1 : 0));
  }
}



import type { RedisConnection } from './redis';
import { SystemClock, type Clock } from '../core/clock';
import { InvalidTransitionError, JournalNotReplicatedError, LeaseLostError, StaleStateError } from '../domain/errors';
import { canTransition, isOrderStatus, LIVE_STATUSES, nextStatus, type OrderEventType, type OrderStatus } from '../domain/order-state';
import type { MarketName } from '../domain/market';
import { StoreKeys } from './keys';
import type { Lease } from './lease-store-port';
import { flatten, historyEntry, journalTime, newRecordFields, parseRecord, patchFields } from './order-record';
import {
  DEFAULT_MAX_CAS_RETRIES,
  HISTORY_MAX,
  type LiveCount,
  type NewOrderRecord,
  type OrderPatch,
  type OrderRecord,
  type OrderStore,
  type RecordResult,
  type TransitionOptions,
} from './order-store-port';
import { withStore } from './redis';
import { errorForLuaCode, LuaErrorCode, pairsToObject, replyCode, storeScripts, type ScriptReply, type StoreScripts } from './scripts';

export interface RedisOrderStoreOptions {
  readonly redis: RedisConnection;
  /** Key builder of the account (StoreKeys.forApiKey). */
  readonly keys: StoreKeys;
  /** Stamps createdAt/updatedAt/history (injected so tests and backtests control time). */
  readonly clock?: Clock;
  /** Stamps each history entry's market time (the simulator's clock in paper mode); default `clock`. */
  readonly marketClock?: Clock;
  readonly maxCasRetries?: number;
  readonly historyMax?: number;
  /**
   * Replicas that must acknowledge an order's record before it may be sent (config `redis.replicaAcks`),
   * and how long to wait for them; default none (replication stays asynchronous).
   */
  readonly replicaAcks?: { readonly replicas: number; readonly timeoutMs: number } | undefined;
}

/**
 * The order journal in Redis. Each atomic step is one Lua script (record-order.lua,
 * transition-order.lua); the transition rules are applied here in TypeScript before the script's
 * compare-and-set, so the table in domain/order-state.ts stays the only copy.
 *
 * Round trips on the happy path of one submitted order: 2.
 *   1. recordSubmit: create the record directly in `submitted`, fencing token checked, indexes
 *      updated (one EVALSHA; it returns the stored record, so no read follows).
 *   2. transition(accept | reject | ..., { expectedStatus: 'submitted' }): one EVALSHA, which also
 *      returns the updated record. Without expectedStatus a transition costs one extra HGET.
 * A lost compare-and-set costs one more round trip per retry (the script returns the current status).
 */
export class RedisOrderStore implements OrderStore {
  private readonly redis: RedisConnection;
  private readonly keys: StoreKeys;
  private readonly clock: Clock;
  private readonly marketClock: Clock;
  private readonly scripts: StoreScripts;
  private readonly maxCasRetries: number;
  private readonly historyMax: number;
  private readonly replicaAcks: RedisOrderStoreOptions['replicaAcks'];

  constructor(opts: RedisOrderStoreOptions) {
    this.redis = opts.redis;
    this.keys = opts.keys;
    this.clock = opts.clock ?? new SystemClock();
    this.marketClock = opts.marketClock ?? this.clock;
    this.scripts = storeScripts(opts.redis);
    this.maxCasRetries = opts.maxCasRetries ?? DEFAULT_MAX_CAS_RETRIES;
    this.historyMax = opts.historyMax ?? HISTORY_MAX;
    this.replicaAcks = opts.replicaAcks !== undefined && opts.replicaAcks.replicas > 0 ? opts.replicaAcks : undefined;
  }

  recordIntent(input: NewOrderRecord): Promise<RecordResult> {
    return this.record(input, undefined);
  }

  async recordSubmit(input: NewOrderRecord, lease: Lease): Promise<RecordResult> {
    if (lease.strategy !== input.strategy || lease.market !== input.market) {
      throw new LeaseLostError('lease is for another strategy or market', { clientOrderId: input.clientOrderId, lease: describeLease(lease) });
    }
    return this.record(input, lease);
  }

  private async record(input: NewOrderRecord, lease: Lease | undefined): Promise<RecordResult> {
    const at = journalTime(this.clock, this.marketClock);
    const now = at.atMs;
    const fields = newRecordFields(input, now);
    // recordSubmit folds the intent and the `send` event into one step; the table says where that lands.
    const status: OrderStatus = lease ? nextStatus('pending', 'send') : 'pending';
    fields['status'] = status;
    if (lease) fields['fencingToken'] = String(lease.token);
    const entry = lease ? historyEntry(at, 'send', 'pending', status) : historyEntry(at, 'record', null, status);
    const k = this.keys;
    const cid = input.clientOrderId;
    const keys = [k.order(cid), k.orderHistory(cid), k.allOrders(), k.strategyOrders(input.strategy), k.liveOrders(), k.liveCounts(), k.lease(input.strategy, input.market)] as const;
    const args = [cid, now, LIVE_STATUSES.has(status) ? '1' : '0', fields['scope'] as string, entry, this.historyMax, lease ? fenceOf(lease) : '', ...flatten(fields)];
    // Only a record that may be sent waits for replicas: an intent alone is harmless if a failover loses it.
    const acks = lease === undefined ? undefined : this.replicaAcks;
    const [reply, acked] = await withStore('recordOrder', async () =>
      (acks === undefined ? [await this.scripts.recordOrder(keys, args), 0] : this.scripts.recordOrderAcked(keys, args, acks.replicas, acks.timeoutMs)));
    if (acks !== undefined && acked < acks.replicas && replyCode(reply) >= 0) {
      throw new JournalNotReplicatedError(`journal record confirmed by ${acked} of ${acks.replicas} replicas within ${acks.timeoutMs} ms: not sent`, { clientOrderId: cid, acked, replicas: acks.replicas });
    }
    const code = replyCode(reply);
    if (code < 0) throw errorForLuaCode(code, { clientOrderId: cid, currentFence: reply[1], lease: lease ? describeLease(lease) : undefined });
    return { created: code === 1, record: recordFromReply(reply) };
  }

  async transition(clientOrderId: string, event: OrderEventType, patch: OrderPatch = {}, options: TransitionOptions = {}): Promise<OrderRecord> {
    if (event === 'send' && !options.lease) {
      throw new LeaseLostError('sending requires the lease of the order\'s strategy and market', { clientOrderId });
    }
    let expected = options.expectedStatus ?? (await this.readStatus(clientOrderId));
    // A caller's guess is not the stored status: an event illegal from the guess is re-checked against the store.
    let verified = options.expectedStatus === undefined;
    for (let attempt = 0; attempt <= this.maxCasRetries; attempt++) {
      if (!canTransition(expected, event) && !verified) {
        expected = await this.readStatus(clientOrderId);
        verified = true;
      }
      const next = nextStatus(expected, event); // InvalidTransitionError: never a silent overwrite
      const reply = await this.compareAndSet(clientOrderId, event, expected, next, patch, options.lease);
      const code = replyCode(reply);
      if (code === 1) return recordFromReply(reply);
      if (code === LuaErrorCode.StaleState && isOrderStatus(reply[1])) {
        expected = reply[1];
        verified = true;
        continue;
      }
      throw errorForLuaCode(code, { clientOrderId, event, expected, current: reply[1] });
    }
    throw new StaleStateError(`order ${clientOrderId} kept changing; gave up after ${this.maxCasRetries + 1} attempts`, { clientOrderId, event });
  }

  private compareAndSet(cid: string, event: OrderEventType, from: OrderStatus, to: OrderStatus, patch: OrderPatch, lease: Lease | undefined): Promise<ScriptReply> {
    const at = journalTime(this.clock, this.marketClock);
    const k = this.keys;
    const fields = patchFields(patch, at.atMs);
    const leaseKey = lease ? k.lease(lease.strategy, lease.market) : k.lease('-', '-');
    return withStore('transitionOrder', () =>
      this.scripts.transitionOrder(
        [k.order(cid), k.orderHistory(cid), k.liveOrders(), k.liveCounts(), leaseKey],
        [
          cid, from, to, LIVE_STATUSES.has(to) ? '1' : '0', historyEntry(at, event, from, to, patch.reason), this.historyMax,
          lease ? fenceOf(lease) : '', lease ? StoreKeys.scopeId(lease.strategy, lease.market) : '',
          ...flatten(fields),
        ],
      ),
    );
  }

  private async readStatus(cid: string): Promise<OrderStatus> {
    const status = await withStore('get status', () => this.redis.hget(this.keys.order(cid), 'status'));
    if (!isOrderStatus(status)) {
      throw new InvalidTransitionError(`no journal record for client order id ${cid}`, { clientOrderId: cid, from: null });
    }
    return status;
  }

  async get(clientOrderId: string): Promise<OrderRecord | undefined> {
    const [record] = await this.getMany([clientOrderId]);
    return record;
  }

  /** One pipelined round trip for any number of records; ids without a record are skipped. */
  private async getMany(ids: readonly string[]): Promise<OrderRecord[]> {
    if (ids.length === 0) return [];
    const results = await withStore('get orders', async () => {
      const pipeline = this.redis.pipeline();
      for (const id of ids) pipeline.hgetall(this.keys.order(id)).lrange(this.keys.orderHistory(id), 0, -1);
      const out = (await pipeline.exec()) ?? [];
      for (const [err] of out) if (err) throw err;
      return out.map(([, value]) => value);
    });
    const records: OrderRecord[] = [];
    for (let i = 0; i < ids.length; i++) {
      const fields = results[2 * i] as Record<string, string>;
      if (!fields || Object.keys(fields).length === 0) continue;
      records.push(parseRecord(fields, results[2 * i + 1] as string[]));
    }
    return records;
  }

  async listLive(): Promise<OrderRecord[]> {
    const ids = await withStore('list live', () => this.redis.smembers(this.keys.liveOrders()));
    const records = await this.getMany(ids);
    return records.sort((a, b) => a.createdAtMs - b.createdAtMs || a.clientOrderId.localeCompare(b.clientOrderId));
  }

  async listByStrategy(strategy: string, limit = 100): Promise<OrderRecord[]> {
    const ids = await withStore('list by strategy', () => this.redis.zrevrange(this.keys.strategyOrders(strategy), 0, Math.max(0, limit - 1)));
    return this.getMany(ids);
  }

  async listAll(limit: number): Promise<OrderRecord[]> {
    if (limit <= 0) return [];
    const ids = await withStore('list all', () => this.redis.zrevrange(this.keys.allOrders(), 0, limit - 1));
    return this.getMany(ids);
  }

  async countLive(strategy: string, market: MarketName): Promise<number> {
    const value = await withStore('count live', () => this.redis.hget(this.keys.liveCounts(), StoreKeys.liveCountField(strategy, market)));
    return value === null ? 0 : Number(value);
  }

  async liveCounts(): Promise<LiveCount[]> {
    const all = await withStore('live counts', () => this.redis.hgetall(this.keys.liveCounts()));
    return Object.entries(all)
      .map(([field, count]) => ({ ...StoreKeys.parseScopeId(field), count: Number(count) }))
      .filter((c) => c.count > 0);
  }
}

function recordFromReply(reply: ScriptReply): OrderRecord {
  return parseRecord(pairsToObject(reply[1]), (reply[2] as string[] | undefined) ?? []);
}

/** What the scripts compare with the lease hash's `fence` field (see acquire-lease.lua). */
function fenceOf(lease: Lease): string {
  return `${lease.token}|${lease.owner}`;
}

function describeLease(lease: Lease): Record<string, unknown> {
  return { strategy: lease.strategy, market: lease.market, owner: lease.owner, token: lease.token };
}

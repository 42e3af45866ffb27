import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { OrderSide } from '../domain/order';
import type { OrderEventType, OrderStatus } from '../domain/order-state';
import type { Lease } from './lease-store-port';

/**
 * The order journal: one record per client order id, written BEFORE anything is sent, so a crash
 * or a replay finds the order instead of creating a second one. Statuses move only through
 * `transition`, which applies the table in domain/order-state.ts and then compare-and-sets.
 *
 * Adapters: RedisOrderStore (live; shared by replicas) and InMemoryOrderStore (paper mode without
 * Redis, tests). Both pass test/integration/store/order-store.contract.ts.
 */

/** Which order: the single order of a stop-limit intent, or one leg of an OCO. */
export type OrderKind = 'stop_limit' | 'oco_sl' | 'oco_tp';
export const ORDER_KINDS: readonly OrderKind[] = ['stop_limit', 'oco_sl', 'oco_tp'];

/** What the executor knows before sending. Money fields accept Decimal or a plain decimal string. */
export interface NewOrderRecord {
  readonly clientOrderId: string;
  readonly strategy: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly amount: Decimal | string;
  /** Limit price (stop-limit) or take-profit price (OCO). */
  readonly price: Decimal | string;
  readonly activationPrice?: Decimal | string | undefined;
  /** OCO only: the stop-loss limit price after the trigger. */
  readonly stopLimitPrice?: Decimal | string | undefined;
  /** Open time of the candle the intent came from, Unix seconds. */
  readonly candleTime: number;
  /**
   * Close time of that candle, Unix seconds on the exchange's clock (its klines): nothing for this
   * intent can have reached the venue before it. Finds an OCO whose answer was lost (oco-fingerprint.ts).
   */
  readonly candleCloseTime?: number | undefined;
  readonly reason?: string | undefined;
  /** The intent's purpose, when it said one (strategies read it back in ctx.openOrders). */
  readonly purpose?: 'entry' | 'exit' | undefined;
  /** The strategy code's version (12 hex digits of its sources' hash) that placed the order. */
  readonly strategyVersion?: string | undefined;
  /** The strategy's parameters at the time, canonical JSON. */
  readonly strategyParams?: string | undefined;
}

/** One entry of a record's bounded history (oldest first). `event` is `record` for the creation. */
export interface OrderTransitionEntry {
  /** Wall time of the step (leases, in-flight windows). */
  readonly atMs: number;
  /**
   * Market time of the step: the simulator's clock in paper mode, the wall clock live. Drift reads
   * fill times from it (a wall-to-market estimate from the run's marks is off by every pause of the
   * simulator's clock). Absent on records journaled before it was kept.
   */
  readonly marketMs?: number;
  readonly event: OrderEventType | 'record';
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
  readonly reason?: string;
}

/** A journal record. Money fields are normalized plain decimal strings (parse with parseDecimal). */
export interface OrderRecord {
  readonly clientOrderId: string;
  readonly strategy: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly amount: string;
  readonly price: string;
  readonly activationPrice: string | undefined;
  readonly stopLimitPrice: string | undefined;
  readonly candleTime: number;
  /** Close time of the candle, Unix seconds; undefined on records journaled before it was kept, and on adopted ones. */
  readonly candleCloseTime?: number | undefined;
  /** The intent's purpose, when it said one. */
  readonly purpose?: 'entry' | 'exit' | undefined;
  /** Which code and parameters placed it; undefined on records journaled before they were kept, and on adopted ones. */
  readonly strategyVersion?: string | undefined;
  readonly strategyParams?: string | undefined;
  readonly status: OrderStatus;
  /** The exchange's order id, once known. */
  readonly orderId: number | undefined;
  /** The exchange's OCO id (both legs carry it), once known. */
  readonly ocoId: number | undefined;
  /** Executed base amount ("0" until something fills). */
  readonly filledAmount: string;
  /** Executed money (quote) amount, the venue's deal money: filledMoney / filledAmount is the average price. */
  readonly filledMoney: string;
  /** Fees paid so far (the venue's deal fee, in its fee currency, usually the money currency). */
  readonly fee: string;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** Last reason given (rejection text, cancel cause, ...). */
  readonly reason: string | undefined;
  /** Fencing token the submission was recorded under, when it was fenced. */
  readonly fencingToken: number | undefined;
  /** Bounded (last HISTORY_MAX) transitions, oldest first. */
  readonly history: readonly OrderTransitionEntry[];
}

/** Fields a transition may set besides the status. Omitted fields keep their value. */
export interface OrderPatch {
  readonly orderId?: number;
  readonly ocoId?: number;
  readonly filledAmount?: Decimal | string;
  readonly filledMoney?: Decimal | string;
  readonly fee?: Decimal | string;
  readonly reason?: string;
}

export interface TransitionOptions {
  /**
   * The status the caller believes the order has (e.g. `submitted` right after recordSubmit).
   * Saves the read: the transition is then ONE round trip when the guess is right, and falls back
   * to the stored status (bounded retries) when it is wrong.
   */
  readonly expectedStatus?: OrderStatus;
  /** Required for `send`: the lease of the order's (strategy, market); checked atomically. */
  readonly lease?: Lease;
}

export interface RecordResult {
  /** False when a record with this client order id already existed: nothing was changed. */
  readonly created: boolean;
  readonly record: OrderRecord;
}

/** Live orders of one (strategy, market), for risk checks. */
export interface LiveCount {
  readonly strategy: string;
  readonly market: MarketName;
  readonly count: number;
}

export interface OrderStore {
  /**
   * Journals an intent in `pending` if no record has this client order id; otherwise returns the
   * existing record untouched (`created: false`). Replays never create a second record.
   */
  recordIntent(record: NewOrderRecord): Promise<RecordResult>;
  /**
   * Journals the order directly in `submitted` (intent + `send` in one atomic step), checking the
   * lease's fencing token in the same step. Throws LeaseLostError when the token is not current
   * (nothing written). An existing record is returned untouched (`created: false`): the caller
   * must then NOT send, but settle the existing order.
   */
  recordSubmit(record: NewOrderRecord, lease: Lease): Promise<RecordResult>;
  /**
   * Applies `event`: next status from domain/order-state.ts, then an atomic compare-and-set from the
   * status it was computed from, with `patch` merged and a history entry appended.
   * Throws InvalidTransitionError for an illegal event (or an unknown client order id), never
   * overwriting; StaleStateError if the status kept changing for `maxCasRetries` attempts;
   * LeaseLostError when `options.lease` is given (always for `send`) and not current.
   */
  transition(clientOrderId: string, event: OrderEventType, patch?: OrderPatch, options?: TransitionOptions): Promise<OrderRecord>;
  get(clientOrderId: string): Promise<OrderRecord | undefined>;
  /** Every record whose status is in LIVE_STATUSES (startup reconciliation, pollers). */
  listLive(): Promise<OrderRecord[]>;
  /** Records of one strategy, newest first. */
  listByStrategy(strategy: string, limit?: number): Promise<OrderRecord[]>;
  /** All records, newest first, at most `limit`. */
  listAll(limit: number): Promise<OrderRecord[]>;
  /** Number of live orders of (strategy, market). */
  countLive(strategy: string, market: MarketName): Promise<number>;
  /** Live counts of every (strategy, market) that has live orders. */
  liveCounts(): Promise<LiveCount[]>;
}

/** How many transitions a record keeps. */
export const HISTORY_MAX = 50;
/** How often `transition` re-reads and retries after losing a compare-and-set. */
export const DEFAULT_MAX_CAS_RETRIES = 5;

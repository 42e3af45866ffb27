import type { Clock } from '../../core/clock';
import { InvalidTransitionError, StaleStateError } from '../../domain/errors';
import type { LeaseStore } from '../../store/lease-store-port';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import type { InFlight } from './in-flight';
import { applyReport, emitFor } from '../journal/journal-updater';
import type { ExchangeSnapshot, OrderLocator } from './order-locator';

export interface SettlerOptions {
  readonly store: OrderStore;
  readonly locator: OrderLocator;
  readonly clock: Clock;
  readonly events: ExecutionEvents;
  /**
   * How long after its last journal write a `submitted`/`unknown` order may still be on its way to
   * the exchange: the HTTP timeout + the longest rate-limiter wait before sending + a margin for
   * clock differences between replicas. Only after it, "found nowhere" means "never created".
   */
  readonly inFlightWindowMs: number;
  /** This process's running requests: never settled as not found while running. */
  readonly inFlight?: InFlight;
  /**
   * With leases: a record fenced with the token of a lease that another LIVE process still holds may
   * be in that process's send queue; that process settles it, not us.
   */
  readonly leases?: Pick<LeaseStore, 'holder'>;
  /** This process's lease owner id (its own records are judged by `inFlight` alone). */
  readonly owner?: string;
}

/** What `settle` did with one record. */
export type SettleOutcome =
  /** found at the exchange, journal already right */
  | 'unchanged'
  /** found, a resting order's status/fills updated */
  | 'updated'
  /** found, a submitted/unknown order resolved */
  | 'settled'
  /** found nowhere after the in-flight window: declared never created (`rejected`) */
  | 'not_found'
  /** found nowhere yet, but it may still be in flight: ask again later */
  | 'waiting'
  /** a resting order found neither active nor in history (reported, left alone) */
  | 'missing'
  /** an OCO without exchange ids matched more than one venue order (or one another record owns): left as is, trading halts */
  | 'ambiguous';

const UNSETTLED = new Set(['submitted', 'unknown']);

/**
 * Settles orders whose outcome is not known (`submitted`, `unknown`) and refreshes resting ones, by
 * ASKING the exchange (active orders, OCO list, history, by clientOrderId or order id). It never
 * sends an order: a lost answer is resolved by looking, not by trying again (practice 7).
 */
export class Settler {
  constructor(private readonly o: SettlerOptions) {}

  /**
   * `ownRequest`: called by the code that is itself running the record's request (the executor after
   * a duplicate or lost answer), which must not wait for itself.
   */
  async settle(record: OrderRecord, snapshot?: ExchangeSnapshot, opts: { ownRequest?: boolean } = {}): Promise<SettleOutcome> {
    // Another task of ours is still waiting for this order's answer: that answer decides.
    if (!opts.ownRequest && this.o.inFlight?.has(record.clientOrderId)) return 'waiting';
    const finding = await this.o.locator.locate(record, snapshot);
    if (finding.where === 'ambiguous') {
      safeEmit(this.o.events, { type: 'OrderIdentityAmbiguous', clientOrderId: record.clientOrderId, market: record.market, reason: finding.reason });
      return 'ambiguous';
    }
    if (finding.where !== 'nowhere') {
      const { changed, record: updated } = await applyReport(this.o.store, this.o.events, record, finding.report, finding.ocoId);
      if (!changed) return 'unchanged';
      if (!UNSETTLED.has(record.status)) return 'updated';
      safeEmit(this.o.events, { type: 'OrderSettled', clientOrderId: record.clientOrderId, status: updated.status, via: finding.where });
      return 'settled';
    }
    if (!UNSETTLED.has(record.status)) return 'missing';
    if (opts.ownRequest || (await this.mayStillBeInFlight(record))) return 'waiting';
    try {
      const updated = await this.o.store.transition(
        record.clientOrderId, 'not_found',
        { reason: `not found at the exchange ${this.o.inFlightWindowMs} ms after it was sent` },
        { expectedStatus: record.status },
      );
      emitFor(this.o.events, record.status, updated);
      return 'not_found';
    } catch (err) {
      // It moved meanwhile (its answer arrived, another replica settled it): that is newer than us.
      if (err instanceof InvalidTransitionError || err instanceof StaleStateError) return 'unchanged';
      throw err;
    }
  }

  /**
   * Before the FIRST send of journaled records that a predecessor may already have sent: the venue
   * lets a client order id be used again once its order finished, so a journal that lost the record
   * (an empty Redis) must not be the only memory. Asks the venue (by client id; an OCO by its
   * fingerprint) and journals what it finds from the venue's report instead of sending.
   * `send`: found nowhere, send it; `found`: journaled from the venue, do not send; `ambiguous`:
   * OrderIdentityAmbiguous was emitted, do not send.
   */
  async lookBeforeFirstSend(records: readonly OrderRecord[]): Promise<'send' | 'found' | 'ambiguous'> {
    let found = false;
    for (const record of records) {
      const finding = await this.o.locator.locate(record);
      if (finding.where === 'ambiguous') {
        safeEmit(this.o.events, { type: 'OrderIdentityAmbiguous', clientOrderId: record.clientOrderId, market: record.market, reason: finding.reason });
        return 'ambiguous';
      }
      if (finding.where === 'nowhere') continue;
      found = true;
      const { record: updated } = await applyReport(this.o.store, this.o.events, record, finding.report, finding.ocoId);
      safeEmit(this.o.events, { type: 'OrderSettled', clientOrderId: record.clientOrderId, status: updated.status, via: `${finding.where}, before a resend` });
    }
    return found ? 'found' : 'send';
  }

  /** Settles every `submitted`/`unknown` record of the journal (one pass). */
  async settleAll(): Promise<Record<SettleOutcome, number>> {
    const counts: Record<SettleOutcome, number> = { unchanged: 0, updated: 0, settled: 0, not_found: 0, waiting: 0, missing: 0, ambiguous: 0 };
    for (const record of await this.o.store.listLive()) {
      if (!UNSETTLED.has(record.status)) continue;
      counts[await this.settle(record)] += 1;
    }
    return counts;
  }

  /**
   * Intents found `pending` at start-up. A pending record was never sent: `send` is journaled
   * (compare-and-set) BEFORE any request leaves the process, and the executor's own path even records
   * intent and send in one step (recordSubmit), so pending only comes from an intent journaled by a
   * two-step writer that died before sending.
   *
   * Decision: a fresh one (created within `resendWithinMs`) is sent again WITH THE SAME client order
   * id through `resend` (the executor; lease, limiter and journal rules apply). The venue refuses a
   * second order with an id only while the first is OPEN (code 36; it accepts the id again once that
   * order finished), so the executor first asks the venue for the id (lookBeforeFirstSend) and adopts
   * what it finds. An older one is abandoned (`cancel`, reason given): its candle's signal is stale,
   * and trading on a stale signal risks money where not trading only misses a chance. Returns how
   * many were resent and abandoned.
   */
  async settlePending(opts: { resendWithinMs: number; resend?: (record: OrderRecord) => Promise<unknown>; scanLimit?: number }): Promise<{ resent: number; abandoned: number }> {
    const records = (await this.o.store.listAll(opts.scanLimit ?? 1000)).filter((r) => r.status === 'pending');
    let resent = 0;
    let abandoned = 0;
    for (const record of records) {
      const age = this.o.clock.nowMs() - record.createdAtMs;
      if (opts.resend && age <= opts.resendWithinMs) {
        await opts.resend(record);
        resent += 1;
        continue;
      }
      try {
        const updated = await this.o.store.transition(record.clientOrderId, 'cancel', { reason: `abandoned at start-up: pending for ${age} ms, never sent` }, { expectedStatus: 'pending' });
        emitFor(this.o.events, 'pending', updated);
        abandoned += 1;
      } catch (err) {
        if (!(err instanceof InvalidTransitionError || err instanceof StaleStateError)) throw err;
      }
    }
    return { resent, abandoned };
  }

  private async mayStillBeInFlight(record: OrderRecord): Promise<boolean> {
    if (this.o.clock.nowMs() - record.updatedAtMs < this.o.inFlightWindowMs) return true;
    if (this.o.leases === undefined || record.fencingToken === undefined) return false;
    const holder = await this.o.leases.holder(record.strategy, record.market);
    return holder !== undefined && holder.token === record.fencingToken && holder.owner !== this.o.owner;
  }
}

import { JournalNotReplicatedError, LeaseLostError, NotReadyError, type TradebotError } from '../../domain/errors';
import type { CancelIntent } from '../../domain/intent';
import type { MarketInfo, MarketName } from '../../domain/market';
import { FINAL_STATUSES } from '../../domain/order-state';
import type { Lease } from '../../store/lease-store-port';
import type { OrderRecord, OrderStore, RecordResult } from '../../store/order-store-port';
import type { StampedIntent } from '../../strategy/intent-validation';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import type { InFlight } from '../reconciliation/in-flight';
import type { LeaseProvider } from '../guards/lease-keeper';
import { OrderCanceler, type CancelExchange } from './order-canceler';
import { OrderSender, type SendExchange } from './order-sender';
import { siblingLegId } from '../journal/oco-ids';
import { prepareOrder, type BalanceView } from './prepare-order';
import type { Readiness } from '../guards/readiness';
import type { PreTradeRisk } from './risk-port';
import type { Settler } from '../reconciliation/settler';

/** The exchange calls the executor makes itself (the settler brings its own look-ups). */
export type ExecutorExchange = SendExchange & CancelExchange;

export interface ExecutorDeps {
  readonly exchange: ExecutorExchange;
  readonly store: OrderStore;
  readonly leases: LeaseProvider;
  readonly risk: PreTradeRisk;
  /** Markets with precision and minimums (MarketCatalog). */
  readonly markets: { get(name: MarketName): Promise<MarketInfo | undefined> };
  readonly settler: Settler;
  /** Set by the reconciler's first successful pass; cleared by drain(). */
  readonly readiness: Readiness;
  readonly events: ExecutionEvents;
  /** Give the Settler the same instance, so it never settles a request that is still running here. */
  readonly inFlight: InFlight;
  /** Optional balance check (e.g. the balance poller's last snapshot); absent = left to the exchange. */
  readonly balances?: BalanceView;
  /**
   * Market time (ms) this process started at. An intent of a candle that closed before it may have
   * been sent by a predecessor whose journal is gone: it is looked for at the venue before its first
   * send (Settler.lookBeforeFirstSend), since the venue accepts an id again once its order finished.
   * Absent (backtests: one process sees every candle): never looked for.
   */
  readonly startedAtMs?: number;
}

/**
 * Where the executor hands trailing stops (execution/trailing/): a trailing_stop intent, and a cancel
 * that names one (undefined: not a trailing stop's id, cancelled here as any order).
 */
export interface TrailingRoute {
  place(stamped: StampedIntent): Promise<SubmitResult>;
  cancel(strategy: string, intent: CancelIntent): Promise<SubmitResult | undefined>;
}

/**
 * What `submit` did. `denied`: a pre-trade rule refused it, nothing journaled or sent. `existing`:
 * the journal already had this intent (a replay): nothing sent, the existing order settled if needed.
 * `unknown`: sent, no definite answer; the settler resolves it by asking the exchange.
 */
export type SubmitResult =
  | { readonly outcome: 'denied'; readonly rule: string; readonly reason: string }
  | { readonly outcome: 'accepted' | 'existing' | 'canceled'; readonly records: readonly OrderRecord[] }
  | { readonly outcome: 'rejected' | 'unknown'; readonly records: readonly OrderRecord[]; readonly reason: string; readonly error?: TradebotError };

/**
 * intent -> risk checks -> rounding to the market's precision -> size limits -> balance -> journal
 * (deterministic client order id, fenced by the lease, BEFORE any request) -> send once under the
 * client's rate limiter -> journal the outcome.
 *
 * Redis round trips of one accepted stop-limit order: 2 (recordSubmit, then one compare-and-set of
 * the outcome). An OCO journals two legs: 4 for two orders (the two recordSubmits run concurrently).
 */
export class Executor {
  private readonly sender: OrderSender;
  private readonly canceler: OrderCanceler;
  private trailing: TrailingRoute | undefined;

  constructor(private readonly deps: ExecutorDeps) {
    this.sender = new OrderSender(deps.exchange, deps.store, deps.settler, deps.events);
    this.canceler = new OrderCanceler(deps.exchange, deps.store, deps.settler, deps.events);
  }

  /** Throws NotReadyError before the first reconciliation succeeded and once drain() started. */
  async submit(stamped: StampedIntent): Promise<SubmitResult> {
    this.assertReady();
    // Tracked from the first await, so drain() also waits for submissions still in their checks.
    return this.deps.inFlight.track([], () => this.submitChecked(stamped));
  }

  /** The kernel's trailing-stop manager (buildKernelCore); without one, trailing_stop intents are denied. */
  routeTrailing(route: TrailingRoute): void {
    this.trailing = route;
  }

  /** Cancels one of the strategy's orders by its client order id, never routed to the trailing stops (their own legs). */
  async cancelOrder(strategy: string, intent: CancelIntent): Promise<SubmitResult> {
    this.assertReady();
    return this.deps.inFlight.track([], () => this.cancel(strategy, intent));
  }

  private async submitChecked(stamped: StampedIntent): Promise<SubmitResult> {
    const intent = stamped.intent;
    if (intent.kind === 'cancel') return (await this.trailing?.cancel(stamped.strategy, intent)) ?? this.cancel(stamped.strategy, intent);
    const deny = (rule: string, reason: string): SubmitResult => {
      safeEmit(this.deps.events, { type: 'OrderDenied', strategy: stamped.strategy, market: intent.market, rule, reason });
      return { outcome: 'denied', rule, reason };
    };
    if (intent.kind === 'trailing_stop') return this.trailing?.place(stamped) ?? deny('kind', 'trailing stops are not available here');
    const market = await this.deps.markets.get(intent.market);
    if (market === undefined) return deny('market', `market ${intent.market} is not listed or not trading`);
    const verdict = await this.deps.risk.check(stamped, market);
    if (!verdict.ok) return deny(verdict.rule, verdict.reason);
    const prepared = prepareOrder(stamped, market, this.deps.balances);
    if (!prepared.ok) return deny(prepared.rule, prepared.reason);
    const lease = this.deps.leases.leaseFor(stamped.strategy, intent.market);
    if (lease === undefined) return deny('lease', `this replica does not hold the lease of ${stamped.strategy} on ${intent.market}`);

    const order = prepared.order;
    return this.deps.inFlight.track(order.records.map((r) => r.clientOrderId), async () => {
      this.assertReady(); // shutdown may have begun while the checks awaited
      // Legs journaled concurrently: one round trip of latency. If one fails the other may exist
      // alone; it is not sent and the settler declares it not found after the in-flight window.
      const written = await Promise.allSettled(order.records.map((r) => this.deps.store.recordSubmit(r, lease)));
      const failed = written.find((w) => w.status === 'rejected');
      if (failed !== undefined) {
        const err: unknown = failed.reason;
        if (err instanceof LeaseLostError) return deny('lease', err.message);
        // Written but not on enough replicas: a failover could forget it, so it is never sent.
        if (err instanceof JournalNotReplicatedError) return this.deniedAfterJournal(order.records, 'journal_replication', err.message, deny);
        throw err; // StoreUnavailableError: nothing was sent
      }
      const results = written.map((w) => (w as PromiseFulfilledResult<RecordResult>).value);
      const records = results.map((r) => r.record);
      if (results.some((r) => !r.created)) return this.replayed(records);
      if (this.sentBeforeStart(records)) {
        const seen = await this.deps.settler.lookBeforeFirstSend(records);
        if (seen === 'found') return this.replayed(records);
        if (seen === 'ambiguous') return this.deniedAfterJournal(records, 'order_identity', 'the venue has more than one order this intent may be', deny);
      }
      // The trading state may have changed while the journal write awaited (an operator's pause):
      // asked again with no await between this check and the send.
      const late = this.deps.risk.recheck?.(stamped);
      if (late !== undefined && !late.ok) return this.deniedAfterJournal(records, late.rule, late.reason, deny);
      for (const r of records) {
        safeEmit(this.deps.events, { type: 'OrderSubmitted', clientOrderId: r.clientOrderId, strategy: r.strategy, market: r.market, kind: r.kind });
      }
      return this.sender.send(records);
    });
  }

  /**
   * Sends a `pending` journal record (and its OCO sibling) found at start-up, with the same client
   * order id (Settler.settlePending decides which ones). `send` is journaled first, fenced.
   */
  async resendPending(record: OrderRecord): Promise<SubmitResult> {
    this.assertReady();
    const lease = this.leaseOf(record);
    const ids = [record.clientOrderId, siblingLegId(record)].filter((id): id is string => id !== undefined);
    return this.deps.inFlight.track(ids, async () => {
      const all = (await Promise.all(ids.map((id) => this.deps.store.get(id)))).filter((r): r is OrderRecord => r !== undefined);
      if (all.length !== ids.length || all.some((r) => r.status !== 'pending')) return this.replayed(all);
      const sl = all.sort((a, b) => (a.kind === 'oco_tp' ? 1 : 0) - (b.kind === 'oco_tp' ? 1 : 0));
      const submitted = await Promise.all(sl.map((r) => this.deps.store.transition(r.clientOrderId, 'send', {}, { expectedStatus: 'pending', lease })));
      // Pending means never sent (send is journaled first), but the journal is not the venue's only memory.
      const seen = await this.deps.settler.lookBeforeFirstSend(submitted);
      if (seen !== 'send') return this.replayed(submitted);
      return this.sender.send(submitted);
    });
  }

  /** Stops new submissions (NotReadyError) and waits up to `timeoutMs` for running ones. True if all finished. */
  async drain(timeoutMs: number): Promise<boolean> {
    this.deps.readiness.markStopping();
    return this.deps.inFlight.drain(timeoutMs);
  }

  get inFlightCount(): number {
    return this.deps.inFlight.size;
  }

  private async cancel(strategy: string, intent: CancelIntent): Promise<SubmitResult> {
    const deny = (rule: string, reason: string): SubmitResult => {
      safeEmit(this.deps.events, { type: 'OrderDenied', strategy, market: intent.market, rule, reason });
      return { outcome: 'denied', rule, reason };
    };
    const record = await this.deps.store.get(intent.clientOrderId);
    if (record === undefined || record.strategy !== strategy || record.market !== intent.market) {
      return deny('cancel_unknown', `no order ${intent.clientOrderId} of ${strategy} on ${intent.market} in the journal`);
    }
    // An OCO is cancelled as a whole: its stop-loss leg may have ended (cancelled by the take-profit
    // executing) while the take-profit still fills in parts.
    const siblingId = siblingLegId(record);
    const sibling = siblingId === undefined ? undefined : await this.deps.store.get(siblingId);
    const records = sibling === undefined ? [record] : [record, sibling];
    if (records.every((r) => FINAL_STATUSES.has(r.status))) return { outcome: 'existing', records };
    const unsettled = records.find((r) => r.status === 'submitted' || r.status === 'unknown' || r.status === 'pending');
    if (unsettled !== undefined) {
      return deny('cancel_unsettled', `order ${unsettled.clientOrderId} is ${unsettled.status}: cancel once its outcome is known`);
    }
    const lease = this.deps.leases.leaseFor(strategy, intent.market);
    if (lease === undefined) return deny('lease', `this replica does not hold the lease of ${strategy} on ${intent.market}`);
    return this.deps.inFlight.track(records.map((r) => r.clientOrderId), async () => {
      try {
        const result = await this.canceler.cancel(records, lease);
        return result.outcome === 'unknown' ? { ...result } : { outcome: 'canceled', records: result.records };
      } catch (err) {
        if (err instanceof LeaseLostError) return deny('lease', err.message);
        throw err;
      }
    });
  }

  /** A late denial: the journaled records, never sent, become `rejected` with the rule's reason. */
  private async deniedAfterJournal(records: readonly Pick<OrderRecord, 'clientOrderId'>[], rule: string, reason: string, deny: (rule: string, reason: string) => SubmitResult): Promise<SubmitResult> {
    for (const r of records) {
      await this.deps.store.transition(r.clientOrderId, 'reject', { reason: `not sent: ${reason}` }, { expectedStatus: 'submitted' })
        .catch(() => undefined); // left `submitted`, it is settled as not found after the in-flight window
    }
    return deny(rule, reason);
  }

  /** The journal already had the intent: never send again; settle what is still unsettled. */
  private async replayed(records: readonly OrderRecord[]): Promise<SubmitResult> {
    const out: OrderRecord[] = [];
    for (const record of records) {
      if (record.status === 'submitted' || record.status === 'unknown') {
        await this.deps.settler.settle(record, undefined, { ownRequest: true }).catch(() => 'waiting');
        out.push((await this.deps.store.get(record.clientOrderId)) ?? record);
      } else {
        out.push(record);
      }
    }
    return { outcome: 'existing', records: out };
  }

  /** A record whose candle closed before this process started (see ExecutorDeps.startedAtMs). */
  private sentBeforeStart(records: readonly OrderRecord[]): boolean {
    const started = this.deps.startedAtMs;
    const r = records[0];
    return started !== undefined && r !== undefined && (r.candleCloseTime ?? r.candleTime) * 1000 <= started;
  }

  private leaseOf(record: OrderRecord): Lease {
    const lease = this.deps.leases.leaseFor(record.strategy, record.market);
    if (lease === undefined) throw new LeaseLostError(`no lease of ${record.strategy} on ${record.market}`, { clientOrderId: record.clientOrderId });
    return lease;
  }

  private assertReady(): void {
    if (!this.deps.readiness.isReady()) {
      throw new NotReadyError(`executor not ready: ${this.deps.readiness.reason() ?? 'unknown reason'}`, {});
    }
  }
}

import type { Clock } from '../../core/clock';
import { TradebotError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { ExchangeClient } from '../../exchange/exchange-client';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { DISCREPANCY_KINDS, safeEmit, type DiscrepancyKind, type ExecutionEvents } from '../journal/events';
import type { LeaseProvider } from '../guards/lease-keeper';
import type { OrderLocator } from './order-locator';
import type { Readiness } from '../guards/readiness';
import type { Settler } from './settler';
import type { OwnOrderPolicy, OwnStrategy } from './own-orders';
import { UnknownOrderHandler, type UnknownOrderPolicy } from './unknown-orders';

export type { UnknownOrderPolicy } from './unknown-orders';

export interface ReconcilerOptions {
  readonly store: OrderStore;
  readonly locator: OrderLocator;
  readonly settler: Settler;
  readonly readiness: Readiness;
  readonly events: ExecutionEvents;
  readonly clock: Clock;
  /** For the `cancel` policy. */
  readonly exchange: Pick<ExchangeClient, 'cancelOrder' | 'cancelOco'>;
  /** Markets to scan for orders the journal does not know (the configured strategies' markets). */
  readonly markets: readonly MarketName[];
  /** What to do with exchange orders the journal does not know. Default `ignore` (report only). */
  readonly unknownOrderPolicy?: UnknownOrderPolicy;
  /** Journal strategy name given to adopted orders (default `adopted`). */
  readonly adoptAs?: string;
  /** For `adopt` and own orders: holds the lease of (adoptAs or the minting strategy, market). */
  readonly leases?: LeaseProvider;
  /** This deployment's strategies, whose orders are adopted back when the journal lost them. */
  readonly ownStrategies?: readonly OwnStrategy[];
  readonly ownOrderPolicy?: OwnOrderPolicy;
  /** Period of the periodic pass (default 30 s). */
  readonly intervalMs?: number;
  /** Delay between attempts of the first pass while it fails (default 2 s). */
  readonly retryMs?: number;
}

export interface ReconcileSummary {
  readonly checked: number;
  readonly discrepancies: Readonly<Record<DiscrepancyKind, number>>;
}

/**
 * Journal vs exchange, on start (before any new order: the executor stays not-ready until the
 * first pass succeeds) and periodically:
 * 1. every live journal record is located (one snapshot of active orders + OCO list per market,
 *    history by id for the rest) and brought up to date: fills, triggers, cancels, settling of
 *    submitted/unknown ones (Settler);
 * 2. active exchange orders the journal does not know are reported and handled by the policy
 *    (`ignore` | `adopt` | `cancel`).
 * A pass that throws (exchange or Redis down) changes nothing it had not finished and is retried.
 */
export class Reconciler {
  private readonly unknown: UnknownOrderHandler;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ReconcileSummary> | undefined;
  private stopped = false;

  constructor(private readonly o: ReconcilerOptions) {
    this.unknown = new UnknownOrderHandler({
      store: o.store, exchange: o.exchange, events: o.events, clock: o.clock,
      policy: o.unknownOrderPolicy ?? 'ignore', adoptAs: o.adoptAs ?? 'adopted',
      ...(o.leases === undefined ? {} : { leases: o.leases }),
      ...(o.ownStrategies === undefined ? {} : { ownStrategies: o.ownStrategies }),
      ...(o.ownOrderPolicy === undefined ? {} : { ownOrderPolicy: o.ownOrderPolicy }),
    });
  }

  get ready(): boolean {
    return this.o.readiness.isReady();
  }

  /**
   * Runs the first pass until it succeeds (retrying every `retryMs`), marks the executor ready, then
   * schedules the periodic pass. Resolves once ready (or when stopped before).
   */
  async start(): Promise<void> {
    this.stopped = false;
    while (!this.stopped) {
      try {
        await this.runOnce();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, this.o.retryMs ?? 2000));
      }
    }
    if (this.stopped) return;
    const tick = (): void => {
      this.timer = setTimeout(() => {
        this.runOnce().catch(() => undefined).finally(() => { if (!this.stopped) tick(); });
      }, this.o.intervalMs ?? 30_000);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One pass. Concurrent callers share the running pass. Marks readiness on success. */
  runOnce(): Promise<ReconcileSummary> {
    this.running ??= this.pass().finally(() => { this.running = undefined; });
    return this.running;
  }

  /**
   * What the exchange did with this market's live journal orders, settled now (fills, triggers,
   * cancels, lost answers): the daemon calls it before a closed candle goes to the strategies, so
   * they never decide on a view one reconcile interval old. Nothing live on the market: no request.
   * Otherwise one paged snapshot of the market's active orders and OCOs, and a history look-up for
   * each order no longer active; every request goes through the client's rate limiter. Orders the
   * journal does not know are left to the periodic pass. Returns how many records changed.
   */
  async settleMarket(market: MarketName): Promise<number> {
    const live = (await this.o.store.listLive()).filter((r) => r.market === market);
    if (live.length === 0) return 0;
    const snapshot = await this.o.locator.snapshot([market]);
    let changed = 0;
    for (const record of live) {
      const outcome = await this.o.settler.settle(record, snapshot);
      if (outcome === 'updated' || outcome === 'settled' || outcome === 'not_found') changed += 1;
    }
    return changed;
  }

  private async pass(): Promise<ReconcileSummary> {
    const started = this.o.clock.nowMs();
    const counts = Object.fromEntries(DISCREPANCY_KINDS.map((k) => [k, 0])) as Record<DiscrepancyKind, number>;
    try {
      const live = await this.o.store.listLive();
      const markets = new Set<MarketName>([...this.o.markets, ...live.map((r) => r.market)]);
      const snapshot = await this.o.locator.snapshot(markets);
      for (const record of live) {
        const outcome = await this.o.settler.settle(record, snapshot);
        if (outcome === 'updated') counts.status += 1;
        else if (outcome === 'settled') counts.settled += 1;
        else if (outcome === 'not_found') counts.not_found += 1;
        else if (outcome === 'missing') counts.missing_at_exchange += 1;
      }
      // Settling may just have given a record its exchange ids (an OCO found by fingerprint): read again.
      const known = knownIds([...live, ...(await this.o.store.listLive())]);
      const unknown = await this.unknown.handle(unknownCandidates(snapshot.active, snapshot.ocos, known));
      counts.unknown_at_exchange = unknown.unknown;
      counts.adopted = unknown.adopted;
      this.o.readiness.markReconciled();
      const summary = { checked: live.length, discrepancies: counts };
      safeEmit(this.o.events, { type: 'ReconciliationCompleted', durationMs: this.o.clock.nowMs() - started, ...summary });
      return summary;
    } catch (err) {
      const error = err instanceof TradebotError ? `${err.code}: ${err.message}` : String(err);
      this.o.readiness.markFailed(error);
      safeEmit(this.o.events, { type: 'ReconciliationFailed', error });
      throw err;
    }
  }
}

interface KnownIds {
  readonly clientOrderIds: ReadonlySet<string>;
  readonly orderIds: ReadonlySet<number>;
  readonly ocoIds: ReadonlySet<number>;
}

/** The ids live journal records are known by at the venue: client order id, order id, OCO id. */
function knownIds(records: readonly OrderRecord[]): KnownIds {
  const clientOrderIds = new Set<string>();
  const orderIds = new Set<number>();
  const ocoIds = new Set<number>();
  for (const r of records) {
    clientOrderIds.add(r.clientOrderId);
    if (r.orderId !== undefined) orderIds.add(r.orderId);
    if (r.ocoId !== undefined) ocoIds.add(r.ocoId);
  }
  return { clientOrderIds, orderIds, ocoIds };
}

/**
 * Active orders/OCOs the live journal does not know by any of their ids (the handler re-checks the
 * journal). OCO legs carry no client order id at the venue: an OCO is known by its OCO id or a leg's
 * order id.
 */
function unknownCandidates(active: readonly OrderReport[], ocos: readonly OcoReport[], known: KnownIds): (OrderReport | OcoReport)[] {
  const byClientId = (cid: string | undefined): boolean => cid !== undefined && known.clientOrderIds.has(cid);
  const out: (OrderReport | OcoReport)[] = [];
  for (const order of active) if (!known.orderIds.has(order.orderId) && !byClientId(order.clientOrderId)) out.push(order);
  for (const oco of ocos) {
    const legs = [oco.stopLoss, oco.takeProfit];
    if (!known.ocoIds.has(oco.id) && !legs.some((l) => known.orderIds.has(l.orderId) || byClientId(l.clientOrderId))) out.push(oco);
  }
  return out;
}

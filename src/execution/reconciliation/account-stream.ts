import { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import { parseDealEvent, parseOrderEvent, type DealEvent } from '../../exchange/stream/stream-frames';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import type { ExecutionEvents } from '../journal/events';
import { applyReport } from '../journal/journal-updater';
import { decideOrderEvent, type PushDisagreement } from './stream-order-rules';

export interface AccountStreamDeps {
  readonly store: Pick<OrderStore, 'get' | 'transition'>;
  readonly events: ExecutionEvents;
  /** REST: the venue asked about one record (Settler.settle). */
  readonly settleRecord: (record: OrderRecord) => Promise<unknown>;
  /** REST: the venue asked about a market's live records (Reconciler.settleMarket). */
  readonly settleMarket: (market: MarketName) => Promise<unknown>;
  /** The journal of `market` changed (open-order view, balances). */
  readonly onChange?: (market: MarketName) => void;
  /** A push that did not parse, or one the consumer failed on (counted, never thrown). */
  readonly onInvalid?: (reason: string) => void;
  /**
   * A push claimed a record (by client order id or order id) but disagreed with it (another order id,
   * market, side, kind, amount or price): it was not applied and the record is asked over REST.
   */
  readonly onMismatch?: (clientOrderId: string, disagreement: PushDisagreement) => void;
  /** How long a deal may wait for its order's push before the venue is asked (default 500 ms). */
  readonly dealGraceMs?: number;
}

/** Orders remembered for duplicate detection (event-1 texts, deal ids): bounds memory. */
const MEMORY = 10_000;
/** Pushes queued behind a slow journal before the rest is dropped and the venue asked instead. */
const MAX_QUEUE = 10_000;

/**
 * The account stream into the journal: `ordersPending_update` through the one transition table
 * (journal-updater.ts, via stream-order-rules.ts), `deals_update` as a check that the journal's
 * filled amount caught up (else the venue is asked). Pushes are applied one at a time in arrival
 * order. Duplicates change nothing (the table, the monotone filled amount, the duplicate rules);
 * anything ambiguous or missing is settled over REST, which stays the truth. A push that claims a
 * record but disagrees with it is never applied (stream-order-rules.ts). Deals never move a record
 * themselves: they only make the venue be asked.
 */
export class AccountStreamConsumer {
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly newEvents = new Map<number, string>();
  private readonly deals = new Map<number, { readonly ids: Set<number>; sum: Decimal }>();
  private readonly asking = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly d: AccountStreamDeps) {}

  /** A push of the account connection (the supervisor's onPush). Never throws. */
  onPush(method: string, params: readonly unknown[]): void {
    if (method === 'ordersPending_update') {
      const ev = parseOrderEvent(params);
      if (ev === undefined) return this.d.onInvalid?.('bad ordersPending_update');
      const text = JSON.stringify(params);
      return this.enqueue(ev.report.market, () => this.onOrder(ev, text));
    }
    if (method === 'deals_update') {
      const deal = parseDealEvent(params);
      if (deal === undefined) return this.d.onInvalid?.('bad deals_update');
      return this.onDeal(deal);
    }
    // balanceSpot and other channels are not read here.
  }

  /** Resolves when every push received so far is applied and every ask started has finished. */
  async idle(): Promise<void> {
    await this.chain;
    while (this.asking.size > 0) await Promise.all([...this.asking.values()]);
  }

  /** A new connection: what the last one saw says nothing about duplicates on this one. */
  reset(): void {
    this.newEvents.clear();
    this.deals.clear();
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private enqueue(market: MarketName, work: () => Promise<void>): void {
    if (this.queued >= MAX_QUEUE) {
      this.d.onInvalid?.('queue full');
      this.ask(market, `market:${market}`, () => this.d.settleMarket(market));
      return;
    }
    this.queued += 1;
    this.chain = this.chain.then(work).catch((err: unknown) => this.d.onInvalid?.(`apply failed: ${String(err)}`)).finally(() => { this.queued -= 1; });
  }

  private async onOrder(ev: NonNullable<ReturnType<typeof parseOrderEvent>>, text: string): Promise<void> {
    const cid = ev.report.clientOrderId;
    const record = cid === undefined ? undefined : await this.d.store.get(cid);
    const previousNew = this.newEvents.get(ev.report.orderId);
    const action = decideOrderEvent(record, ev, { previousNew, text });
    // A push that disagrees with its record is not the venue's word on that order: it must not
    // shape how the order's later events are read (duplicate / activation memory) either.
    if (action.kind !== 'mismatch') {
      if (ev.eventId === 1) remember(this.newEvents, ev.report.orderId, text);
      if (ev.eventId === 3) this.newEvents.delete(ev.report.orderId);
    }
    switch (action.kind) {
      case 'ignore':
        return;
      case 'ask_market':
        this.ask(ev.report.market, `market:${ev.report.market}`, () => this.d.settleMarket(ev.report.market));
        return;
      case 'mismatch':
        this.d.onMismatch?.(action.record.clientOrderId, action.disagreement);
        this.askRecord(action.record);
        return;
      case 'ask_record':
        this.askRecord(action.record);
        return;
      case 'apply': {
        const { changed } = await applyReport(this.d.store as OrderStore, this.d.events, record!, action.event.report);
        if (changed) this.d.onChange?.(record!.market);
        return;
      }
    }
  }

  /** REST settlement of one record, read fresh from the journal when the question runs. */
  private askRecord(record: OrderRecord): void {
    this.ask(record.market, `record:${record.clientOrderId}`, async () => {
      const fresh = await this.d.store.get(record.clientOrderId);
      if (fresh !== undefined) await this.d.settleRecord(fresh);
    });
  }

  /**
   * A fill: its order's push normally brings the journal there first. If after the grace the
   * journal shows less than the deals seen on this connection, a push was lost: ask the venue.
   */
  private onDeal(deal: DealEvent): void {
    let seen = this.deals.get(deal.orderId);
    if (seen === undefined) {
      seen = { ids: new Set(), sum: new Decimal(0) };
      remember(this.deals, deal.orderId, seen);
    }
    if (seen.ids.has(deal.dealId)) return;
    seen.ids.add(deal.dealId);
    seen.sum = seen.sum.plus(deal.amount);
    const dealt = seen.sum;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(deal.market, async () => {
        const record = deal.clientOrderId === undefined ? undefined : await this.d.store.get(deal.clientOrderId);
        if (record === undefined || record.kind !== 'stop_limit') {
          this.ask(deal.market, `market:${deal.market}`, () => this.d.settleMarket(deal.market));
          return;
        }
        if (dealt.greaterThan(record.filledAmount)) this.ask(record.market, `record:${record.clientOrderId}`, () => this.d.settleRecord(record));
      });
    }, this.d.dealGraceMs ?? 500);
    timer.unref();
    this.timers.add(timer);
  }

  /** One REST question per key at a time; asked once more after it when wanted again meanwhile. */
  private ask(market: MarketName, key: string, run: () => Promise<unknown>): void {
    if (this.asking.has(key)) {
      this.again.add(key);
      return;
    }
    const p: Promise<void> = run()
      .then(() => this.d.onChange?.(market), (err: unknown) => this.d.onInvalid?.(`ask failed: ${String(err)}`))
      .finally(() => {
        this.asking.delete(key);
        if (this.again.delete(key)) this.ask(market, key, run);
      });
    this.asking.set(key, p);
  }
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MEMORY) map.delete(map.keys().next().value as K);
}

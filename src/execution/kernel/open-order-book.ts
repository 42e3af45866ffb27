import { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import { LIVE_STATUSES } from '../../domain/order-state';
import { exchangeClientOrderId, siblingLegId } from '../journal/oco-ids';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import type { OpenOrderView } from '../../risk/open-order-view';

/**
 * The daemon's view of its own resting orders, read from the journal (listLive) and kept in memory
 * so strategies (ctx.openOrders) and risk checks (notional per market, orders per strategy) read it
 * synchronously. Refreshed after every reconciliation pass and after each batch of submissions.
 * An OCO's two journal legs are ONE view, named by its stop-loss leg's client order id.
 */
const NONE: readonly OpenOrderView[] = Object.freeze([]);

export class OpenOrderBook {
  private byMarket = new Map<MarketName, OpenOrderView[]>();
  /** One strategy's views per market, built on first read after a change (strategies read them every candle). */
  private byStrategy = new Map<MarketName, Map<string, readonly OpenOrderView[]>>();
  private counts: { strategy: string; market: MarketName; count: number }[] = [];

  constructor(private readonly store: Pick<OrderStore, 'listLive'>, private readonly onCounts?: (counts: readonly { strategy: string; market: MarketName; count: number }[]) => void) {}

  async refresh(): Promise<void> {
    const live = await this.store.listLive();
    const next = new Map<MarketName, OpenOrderView[]>();
    const counts = new Map<string, { strategy: string; market: MarketName; count: number }>();
    const liveIds = new Set(live.map((r) => r.clientOrderId));
    for (const record of live) {
      // An OCO is represented by its stop-loss leg; once that leg ended (cancelled by the take-profit
      // executing in parts), by the take-profit leg still filling.
      if (record.kind === 'oco_tp' && liveIds.has(siblingLegId(record) as string)) continue;
      const view = toView(record);
      const list = next.get(record.market);
      if (list === undefined) next.set(record.market, [view]);
      else list.push(view);
      const key = `${record.strategy}|${record.market}`;
      const c = counts.get(key) ?? { strategy: record.strategy, market: record.market, count: 0 };
      c.count += 1;
      counts.set(key, c);
    }
    this.byMarket = next;
    this.byStrategy = new Map();
    this.counts = [...counts.values()];
    this.onCounts?.(this.counts);
  }

  /**
   * Adds freshly journaled live records at once (cheap), so the next risk check of the same batch
   * counts them; the next full refresh replaces the whole view anyway.
   */
  note(records: readonly OrderRecord[]): void {
    for (const record of records) {
      if (record.kind === 'oco_tp' || !LIVE_STATUSES.has(record.status)) continue;
      const list = this.byMarket.get(record.market) ?? [];
      if (list.some((o) => o.clientOrderId === record.clientOrderId)) continue;
      this.byMarket.set(record.market, [...list, toView(record)]);
      this.byStrategy = new Map();
    }
  }

  /** Every open order on the market, all strategies (risk checks). */
  onMarket(market: MarketName): readonly OpenOrderView[] {
    return this.byMarket.get(market) ?? NONE;
  }

  /** One strategy's open orders on the market (ctx.openOrders), read on every candle: no allocation when unchanged. */
  of(strategy: string, market: MarketName): readonly OpenOrderView[] {
    const all = this.onMarket(market);
    if (all.length === 0) return NONE;
    let ofMarket = this.byStrategy.get(market);
    if (ofMarket === undefined) {
      ofMarket = new Map();
      this.byStrategy.set(market, ofMarket);
    }
    let views = ofMarket.get(strategy);
    if (views === undefined) {
      views = Object.freeze(all.filter((o) => o.strategy === strategy));
      ofMarket.set(strategy, views);
    }
    return views;
  }

  /** One strategy's open orders on every market (its budget). */
  ofStrategy(strategy: string): readonly OpenOrderView[] {
    const out: OpenOrderView[] = [];
    for (const market of this.byMarket.keys()) out.push(...this.of(strategy, market));
    return out;
  }

  liveCounts(): readonly { strategy: string; market: MarketName; count: number }[] {
    return this.counts;
  }
}

/**
 * Views by record object. A journal record is never changed in place (every write makes a new one),
 * so its view stays right for as long as the object lives; the in-memory journal hands out the same
 * objects on every listLive, so a backtest's refresh after each batch does not parse every resting
 * order's prices again. Weak: records dropped by the journal (or Redis's fresh ones) take theirs along.
 */
const views = new WeakMap<OrderRecord, OpenOrderView>();

function toView(r: OrderRecord): OpenOrderView {
  let view = views.get(r);
  if (view === undefined) {
    view = buildView(r);
    views.set(r, view);
  }
  return view;
}

function buildView(r: OrderRecord): OpenOrderView {
  const amount = new Decimal(r.amount).minus(r.filledAmount);
  return {
    // An OCO's view is named by the id sent to the exchange (its stop-loss leg's), whichever leg carries it.
    clientOrderId: exchangeClientOrderId(r),
    strategy: r.strategy,
    market: r.market,
    side: r.side,
    kind: r.kind === 'stop_limit' ? 'stop_limit' : 'oco',
    amount: amount.isNegative() ? new Decimal(0) : amount,
    price: new Decimal(r.price),
    activationPrice: r.activationPrice === undefined ? undefined : new Decimal(r.activationPrice),
    stopLimitPrice: r.stopLimitPrice === undefined ? undefined : new Decimal(r.stopLimitPrice),
    purpose: r.purpose,
    candleTime: r.candleTime,
  };
}

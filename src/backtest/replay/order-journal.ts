import type { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';
import type { MarketName } from '../../domain/market';
import type { SimOco, SimOrder } from '../../simulator/engine/types';
import type { OpenOrderView } from '../../risk/open-order-view';

/** One order (or OCO pair) the backtest placed, keyed by the client order id it was sent with. */
interface Entry {
  /** Replaced when a partial fill changes the amount still open. */
  view: OpenOrderView;
  /** The engine's live objects (read only): their status says whether the order is still open. */
  readonly order: SimOrder | undefined;
  readonly oco: SimOco | undefined;
}

const NONE: readonly OpenOrderView[] = Object.freeze([]);

/**
 * The backtest's stand-in for the executor's order journal: every order placed, by client order id,
 * and the views of the ones still open, which strategies (`ctx.openOrders`, own orders on a market)
 * and the risk checks (every strategy's orders on a market) read. An OCO is one entry and one view,
 * under the stop-loss leg's id (the id sent to the exchange, see execution/oco-ids.ts).
 *
 * Views are cached per (strategy, market) and per market and rebuilt only after a change, because
 * strategies read them on every candle and orders change rarely.
 */
export class OrderJournal {
  private readonly all = new Map<string, Entry>();
  private readonly open = new Map<string, Entry>();
  /** strategy -> market -> views; nested maps, so the hot read builds no key string. */
  private readonly byStrategy = new Map<string, Map<MarketName, readonly OpenOrderView[]>>();
  private readonly byMarket = new Map<MarketName, readonly OpenOrderView[]>();

  addOrder(view: OpenOrderView, order: SimOrder): void {
    this.add(view.clientOrderId, { view, order, oco: undefined });
  }

  addOco(view: OpenOrderView, oco: SimOco): void {
    this.add(view.clientOrderId, { view, order: undefined, oco });
  }

  /** 'unknown' when never placed (by this strategy on this market), else whether it is still open. */
  status(clientOrderId: string, strategy: string, market: MarketName): 'unknown' | 'open' | 'final' {
    const entry = this.all.get(clientOrderId);
    if (entry === undefined || entry.view.strategy !== strategy || entry.view.market !== market) return 'unknown';
    return isOpen(entry) ? 'open' : 'final';
  }

  /** The view an order was placed with (still open or not). */
  viewOf(clientOrderId: string): OpenOrderView | undefined {
    return this.all.get(clientOrderId)?.view;
  }

  kind(clientOrderId: string): OpenOrderView['kind'] | undefined {
    return this.all.get(clientOrderId)?.view.kind;
  }

  /**
   * Re-reads the engine state of one order after an engine event: drops it from the open set once
   * finished; after a partial fill its view shows the amount still open (as the daemon's book does).
   */
  refresh(clientOrderId: string): void {
    const entry = this.open.get(clientOrderId);
    if (entry === undefined) return;
    if (isOpen(entry)) {
      const left = openAmount(entry);
      if (compareDecimals(left, entry.view.amount) === 0) return;
      entry.view = Object.freeze({ ...entry.view, amount: left });
    } else {
      this.open.delete(clientOrderId);
    }
    this.invalidate();
  }

  /** This strategy's open orders on the market, oldest first. */
  openOf(strategy: string, market: MarketName): readonly OpenOrderView[] {
    if (this.open.size === 0) return NONE;
    let markets = this.byStrategy.get(strategy);
    if (markets === undefined) {
      markets = new Map();
      this.byStrategy.set(strategy, markets);
    }
    let views = markets.get(market);
    if (views === undefined) {
      views = Object.freeze([...this.open.values()].map((e) => e.view).filter((v) => v.strategy === strategy && v.market === market));
      markets.set(market, views);
    }
    return views;
  }

  /** Every strategy's open orders on the market (what the risk checks count). */
  openOnMarket(market: MarketName): readonly OpenOrderView[] {
    let views = this.byMarket.get(market);
    if (views === undefined) {
      views = this.open.size === 0 ? NONE : Object.freeze([...this.open.values()].map((e) => e.view).filter((v) => v.market === market));
      this.byMarket.set(market, views);
    }
    return views;
  }

  get openCount(): number {
    return this.open.size;
  }

  private add(clientOrderId: string, entry: Entry): void {
    this.all.set(clientOrderId, entry);
    if (isOpen(entry)) {
      this.open.set(clientOrderId, entry);
      this.invalidate();
    }
  }

  private invalidate(): void {
    for (const markets of this.byStrategy.values()) markets.clear();
    this.byMarket.clear();
  }
}

/** What is still open: the order's rest; of an OCO, the rest of the leg that can still execute (the stop-loss while it rests). */
function openAmount(entry: Entry): Decimal {
  if (entry.order !== undefined) return entry.order.left;
  const oco = entry.oco as SimOco;
  return oco.stopLoss.status === 'OPEN' ? oco.stopLoss.left : oco.takeProfit.left;
}

function isOpen(entry: Entry): boolean {
  if (entry.order !== undefined) return entry.order.status === 'OPEN';
  const oco = entry.oco as SimOco;
  return oco.stopLoss.status === 'OPEN' || oco.takeProfit.status === 'OPEN';
}

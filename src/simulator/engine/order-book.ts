import type { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import { compareDecimals } from '../../domain/decimal-compare';
import type { SimDeal, SimOco, SimOrder } from './types';

/**
 * The price levels at which a market's open orders act (FILL-MODEL.md): `up` = the lowest level
 * reached by a RISING price (resting sell limits, waiting buy stops), `down` = the highest level
 * reached by a FALLING price (resting buy limits, waiting sell stops). A candle whose path stays
 * strictly between them can do nothing, so the engine skips its path walk (the common case).
 */
export interface MarketReach {
  up: Decimal | undefined;
  down: Decimal | undefined;
  /** `up` and `down` as doubles (NaN when undefined), for a first test on a candle's doubles. */
  upF: number;
  downF: number;
  /** False once an order of the market was added, finished or triggered; recomputed on the next read. */
  valid: boolean;
}

/**
 * Where the engine keeps orders: open orders by id and by market (the matcher scans a market's
 * orders on every candle), OCO groups, and bounded per-account lists of finished orders and deals
 * (the oldest are dropped first, as the venue stops returning old history).
 */
const NO_ORDERS: readonly SimOrder[] = Object.freeze([]);

export class OrderBook {
  private readonly open = new Map<number, SimOrder>();
  private readonly byMarket = new Map<MarketName, Map<number, SimOrder>>();
  private readonly ocos = new Map<number, SimOco>();
  private readonly finished = new Map<string, SimOrder[]>();
  /** The same finished orders by id: the daemon settles each order that left the book by its id. */
  private readonly finishedById = new Map<number, SimOrder>();
  private readonly deals = new Map<string, SimDeal[]>();
  private readonly reaches = new Map<MarketName, MarketReach>();

  constructor(private readonly historyLimit: number) {}

  add(order: SimOrder): void {
    this.open.set(order.id, order);
    let market = this.byMarket.get(order.market);
    if (market === undefined) {
      market = new Map();
      this.byMarket.set(order.market, market);
    }
    market.set(order.id, order);
    this.levelsChanged(order.market);
  }

  /** An order's level changed (a stop triggered and became a limit): the market's reach is stale. */
  levelsChanged(market: MarketName): void {
    const reach = this.reaches.get(market);
    if (reach !== undefined) reach.valid = false;
  }

  /** The market's reach (see MarketReach), recomputed only after a change. */
  reach(market: MarketName): MarketReach {
    let reach = this.reaches.get(market);
    if (reach === undefined) {
      reach = { up: undefined, down: undefined, upF: NaN, downF: NaN, valid: false };
      this.reaches.set(market, reach);
    }
    if (reach.valid) return reach;
    let up: Decimal | undefined;
    let down: Decimal | undefined;
    for (const order of this.byMarket.get(market)?.values() ?? []) {
      if (order.status !== 'OPEN') continue;
      let rising: boolean;
      let level: Decimal | undefined;
      if (order.activated) {
        rising = order.side === 'sell';
        level = order.price;
      } else {
        rising = order.activationCondition === 'gte';
        level = order.activationPrice;
      }
      if (level === undefined) continue;
      if (rising) {
        if (up === undefined || compareDecimals(level, up) < 0) up = level;
      } else if (down === undefined || compareDecimals(level, down) > 0) {
        down = level;
      }
    }
    reach.up = up;
    reach.down = down;
    reach.upF = up === undefined ? NaN : up.toNumber();
    reach.downF = down === undefined ? NaN : down.toNumber();
    reach.valid = true;
    return reach;
  }

  addOco(oco: SimOco): void {
    this.ocos.set(oco.id, oco);
  }

  get(id: number): SimOrder | undefined {
    return this.open.get(id);
  }

  getOco(id: number): SimOco | undefined {
    return this.ocos.get(id);
  }

  /** Open orders of one market in id (= time) order; a copy, safe to iterate while orders finish. */
  openInMarket(market: MarketName): SimOrder[] {
    const orders = this.byMarket.get(market);
    return orders === undefined ? [] : [...orders.values()];
  }

  /** The live open orders of one market in id order: do not iterate while orders are added or finish. */
  openInMarketLive(market: MarketName): Iterable<SimOrder> {
    return this.byMarket.get(market)?.values() ?? NO_ORDERS;
  }

  hasOpenInMarket(market: MarketName): boolean {
    return (this.byMarket.get(market)?.size ?? 0) > 0;
  }

  /** Open orders of one account, oldest first, optionally of one market. */
  openOf(apiKey: string, market?: MarketName): SimOrder[] {
    const source = market === undefined ? this.open.values() : (this.byMarket.get(market)?.values() ?? [].values());
    const result: SimOrder[] = [];
    for (const order of source) if (order.apiKey === apiKey) result.push(order);
    return result;
  }

  openOcosOf(apiKey: string, market?: MarketName): SimOco[] {
    const result: SimOco[] = [];
    for (const oco of this.ocos.values()) {
      if (oco.apiKey === apiKey && (market === undefined || oco.market === market)) result.push(oco);
    }
    return result;
  }

  /** The account's open order (or OCO leg) on `market` with this client order id. */
  findByClientId(apiKey: string, market: MarketName, clientOrderId: string): SimOrder | undefined {
    for (const order of this.byMarket.get(market)?.values() ?? []) {
      if (order.apiKey === apiKey && order.clientOrderId === clientOrderId) return order;
    }
    return undefined;
  }

  findOcoByClientId(apiKey: string, market: MarketName, clientOrderId: string): SimOco | undefined {
    for (const oco of this.ocos.values()) {
      if (oco.apiKey === apiKey && oco.market === market && oco.clientOrderId === clientOrderId) return oco;
    }
    return undefined;
  }

  /** Moves an order from the open set to the account's history; drops its OCO group once both legs ended. */
  finish(order: SimOrder): void {
    this.open.delete(order.id);
    this.byMarket.get(order.market)?.delete(order.id);
    this.levelsChanged(order.market);
    this.finishedById.set(order.id, order);
    for (const dropped of pushBounded(this.finished, order.apiKey, order, this.historyLimit)) this.finishedById.delete(dropped.id);
    if (order.ocoId !== undefined) {
      const oco = this.ocos.get(order.ocoId);
      if (oco !== undefined && !this.open.has(oco.stopLoss.id) && !this.open.has(oco.takeProfit.id)) this.ocos.delete(oco.id);
    }
  }

  recordDeal(deal: SimDeal): void {
    pushBounded(this.deals, deal.apiKey, deal, this.historyLimit);
  }

  /** Finished orders of one account, newest first. */
  historyOf(apiKey: string): readonly SimOrder[] {
    return [...(this.finished.get(apiKey) ?? [])].reverse();
  }

  /** A finished order still in its account's history, by id. */
  finishedOrder(apiKey: string, id: number): SimOrder | undefined {
    const order = this.finishedById.get(id);
    return order?.apiKey === apiKey ? order : undefined;
  }

  /** Finished orders of one account that `keep` accepts, newest first, without copying the history. */
  historyWhere(apiKey: string, keep: (order: SimOrder) => boolean): SimOrder[] {
    const list = this.finished.get(apiKey) ?? [];
    const out: SimOrder[] = [];
    for (let i = list.length - 1; i >= 0; i--) if (keep(list[i] as SimOrder)) out.push(list[i] as SimOrder);
    return out;
  }

  /** Deals of one account, newest first. */
  dealsOf(apiKey: string): readonly SimDeal[] {
    return [...(this.deals.get(apiKey) ?? [])].reverse();
  }
}

/** Appends; returns what was trimmed off the old end. */
function pushBounded<T>(map: Map<string, T[]>, key: string, item: T, limit: number): readonly T[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  list.push(item);
  // Trim in chunks so a long backtest does not pay an O(n) shift on every fill.
  return list.length > limit + Math.max(16, limit >> 3) ? list.splice(0, list.length - limit) : NOTHING;
}

const NOTHING: readonly never[] = [];

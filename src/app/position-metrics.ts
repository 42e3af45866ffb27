import { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { Metrics } from '../metrics/registry';
import type { OrderRecord } from '../store/order-store-port';
import { PnlTracker } from './pnl-tracker';

/**
 * Fills, realised PnL and exposure (position x last close) per (strategy, market) as metrics, from the journal's
 * fills (the same average-cost rule as the daily loss limit, which keeps its own per-market book).
 * Display only: floats in gauges, never amounts sent anywhere. Counts from the process start.
 */
export class PositionMetrics {
  private readonly tracker: PnlTracker;
  private readonly lastPrice = new Map<MarketName, Decimal>();
  private readonly realized = new Map<string, Decimal>();
  private readonly held = new Map<MarketName, Set<string>>();

  constructor(private readonly metrics: Metrics, feeRate: Decimal) {
    this.tracker = new PnlTracker(feeRate, (amount, record) => this.onRealized(amount, record), {
      keyOf: (r) => `${r.strategy}|${r.market}`,
      onFill: (record, _delta, qty) => this.onFill(record, qty),
    });
  }

  /** A record whose filled amount may have grown (every fill event of the journal). */
  fill(record: OrderRecord): void {
    this.tracker.onFill(record);
  }

  /** A new last close: exposure of every strategy holding the market. */
  price(market: MarketName, close: Decimal): void {
    this.lastPrice.set(market, close);
    for (const strategy of this.held.get(market) ?? []) this.setExposure(strategy, market);
  }

  private onFill(record: OrderRecord, _qty: Decimal): void {
    const labels = { strategy: record.strategy, market: record.market };
    this.metrics.fills.inc({ ...labels, side: record.side });
    const holders = this.held.get(record.market) ?? new Set<string>();
    holders.add(record.strategy);
    this.held.set(record.market, holders);
    this.setExposure(record.strategy, record.market);
  }

  private onRealized(amount: Decimal, record: OrderRecord): void {
    const key = `${record.strategy}|${record.market}`;
    const total = (this.realized.get(key) ?? new Decimal(0)).plus(amount);
    this.realized.set(key, total);
    this.metrics.realizedPnl.set({ strategy: record.strategy, market: record.market }, total.toNumber());
  }

  private setExposure(strategy: string, market: MarketName): void {
    const price = this.lastPrice.get(market);
    if (price === undefined) return;
    this.metrics.exposure.set({ strategy, market }, this.tracker.quantity(`${strategy}|${market}`).times(price).toNumber());
  }
}

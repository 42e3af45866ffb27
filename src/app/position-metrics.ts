import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { Metrics } from '../metrics/registry';
import type { Portfolio, PositionState } from '../portfolio/portfolio';

/**
 * Fills, realised PnL and exposure (position x last close) per (strategy, market) as metrics, read
 * from the portfolio after each of its fills and at each close. Display only: floats in gauges,
 * never amounts sent anywhere. Fills count from the process start; realised PnL and exposure include
 * the journal's fills read at start-up, as ctx.position does.
 */
export class PositionMetrics {
  private readonly lastPrice = new Map<MarketName, Decimal>();
  private readonly held = new Map<MarketName, Set<string>>();

  constructor(private readonly metrics: Metrics, private readonly portfolio: Portfolio) {
    portfolio.onFill((state, fill) => this.onFill(state, fill.side, fill.replayed === true));
  }

  /** A new last close: exposure of every strategy holding the market. */
  price(market: MarketName, close: Decimal): void {
    this.lastPrice.set(market, close);
    for (const strategy of this.held.get(market) ?? []) this.setExposure(strategy, market);
  }

  private onFill(state: PositionState, side: 'buy' | 'sell', replayed: boolean): void {
    const labels = { strategy: state.strategy, market: state.market };
    if (!replayed) this.metrics.fills.inc({ ...labels, side });
    this.metrics.realizedPnl.set(labels, state.realizedPnl.toNumber());
    const holders = this.held.get(state.market) ?? new Set<string>();
    holders.add(state.strategy);
    this.held.set(state.market, holders);
    this.setExposure(state.strategy, state.market);
  }

  private setExposure(strategy: string, market: MarketName): void {
    const price = this.lastPrice.get(market);
    if (price === undefined) return;
    this.metrics.exposure.set({ strategy, market }, this.portfolio.exposure(strategy, market, price).toNumber());
  }
}

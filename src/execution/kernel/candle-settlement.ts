import type { MarketName } from '../../domain/market';
import type { Reconciler } from '../reconciliation/reconciler';
import type { OpenOrderBook } from './open-order-book';
import type { OrderFeedbackRecorder } from './order-feedback-recorder';

export interface CandleSettlementDeps {
  readonly reconciler: Pick<Reconciler, 'settleMarket'>;
  readonly book: Pick<OpenOrderBook, 'refresh'>;
  /** Re-reads the balances (trading and collateral) after fills changed them. */
  readonly pollBalances: () => Promise<void>;
  readonly feedback: Pick<OrderFeedbackRecorder, 'idle'>;
  /** The account stream, when one runs (docs/streams.md). */
  readonly stream?: AccountStreamView | undefined;
}

/** What the candle step needs of a running account stream. */
export interface AccountStreamView {
  /** Healthy (subscribed, resynced, not silent): its pushes keep the journal current. */
  isHealthy(): boolean;
  /** Every push received so far applied. */
  idle(): Promise<void>;
  /** Whether the stream changed `market`'s journal since the last call (and forgets it). */
  takeChanged(market: MarketName): boolean;
}

/**
 * The daemon's step before a closed candle of `market` goes to the strategies: the exchange's view
 * of our live orders on the market is settled into the journal (Reconciler.settleMarket), the
 * open-order view refreshed, the balances re-read when something changed, and the strategies'
 * feedback (ctx.events, ctx.position) brought up to date. The backtest's engine settles at the same
 * point (its fills are applied before the strategy candle closes), so both decide on the same view.
 * While a healthy account stream keeps the journal current, its pushes are awaited instead of the
 * REST question (the periodic reconciliation still asks, less often).
 */
export function settleBeforeCandle(d: CandleSettlementDeps): (market: MarketName) => Promise<void> {
  return async (market) => {
    let changed: number;
    if (d.stream?.isHealthy() === true) {
      await d.stream.idle();
      changed = d.stream.takeChanged(market) ? 1 : 0;
    } else {
      changed = await d.reconciler.settleMarket(market);
      d.stream?.takeChanged(market);
    }
    await d.book.refresh();
    await d.feedback.idle();
    if (changed > 0) await d.pollBalances();
  };
}

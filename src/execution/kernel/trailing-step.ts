import type { Candle, Interval } from '../../domain/candle';
import type { MarketName } from '../../domain/market';
import type { TrailingStops } from '../trailing/trailing-stops';
import type { OpenOrderBook } from './open-order-book';
import type { OrderFeedbackRecorder } from './order-feedback-recorder';

/**
 * The kernel's `trail` part of THE candle step, the same for the daemon and a backtest: the trailing
 * stops of the market take the settled candle, and when a leg moved, the open-order view, the order
 * feedback and the balances follow before the strategies decide (ctx.openOrders shows the new leg).
 * Undefined (no promise) when no trailing stop rests on the market.
 */
export function trailBeforeStrategies(
  trailing: Pick<TrailingStops, 'onCandle'>, book: Pick<OpenOrderBook, 'refresh'>, feedback: Pick<OrderFeedbackRecorder, 'idle'>,
  pollBalances: () => Promise<void>,
): (market: MarketName, interval: Interval, candle: Candle) => Promise<void> | undefined {
  return (market, interval, candle) => {
    const moving = trailing.onCandle(market, interval, candle);
    if (moving === undefined) return undefined;
    return moving.then(async (changed) => {
      if (!changed) return;
      await book.refresh();
      await feedback.idle();
      await pollBalances();
    });
  };
}

import type { Decimal } from './decimal';
import type { MarketName } from './market';
import type { OrderSide } from './order';

/**
 * What strategies emit. Intents say what the strategy wants; the executor turns them into orders
 * after risk checks and rounding. Prices and amounts are Decimals (strategies build them with
 * `new Decimal(...)` or from candle fields), never floats.
 */
export interface StopLimitIntent {
  readonly kind: 'stop_limit';
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: Decimal;
  /** Limit price once activated. */
  readonly price: Decimal;
  /** Trigger: buy activates when the market price rises to it (gte), sell when it falls to it (lte). */
  readonly activationPrice: Decimal;
  /** Entries open or grow a position; exits reduce one. Reduce-only mode lets only exits through. */
  readonly purpose?: 'entry' | 'exit';
  /** Distinguishes several intents of one strategy on one candle (part of the client order id). */
  readonly tag?: string;
}

/** One-cancels-other: a take-profit limit leg (`price`) and a stop-loss leg (`activationPrice` then `stopLimitPrice`). */
export interface OcoIntent {
  readonly kind: 'oco';
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: Decimal;
  /** Take-profit limit price. */
  readonly price: Decimal;
  /** Stop-loss trigger price. */
  readonly activationPrice: Decimal;
  /** Stop-loss limit price after the trigger. */
  readonly stopLimitPrice: Decimal;
  readonly purpose?: 'entry' | 'exit';
  readonly tag?: string;
}

/** Cancel one of this strategy's own open orders, by client order id. */
export interface CancelIntent {
  readonly kind: 'cancel';
  readonly market: MarketName;
  readonly clientOrderId: string;
}

/**
 * A stop-limit that follows the price: its trigger sits `trail` away from the best price seen since
 * placement (the highest for a sell, which protects a long; the lowest for a buy, which protects a
 * short), starting from the close of the candle it was placed on. On each closed candle of the
 * strategy's interval the kernel moves it (cancel, then a new stop-limit: one logical order with
 * numbered legs, never two resting at once) when the trigger can move by at least `step`. The same
 * code moves it in backtests, paper and live (execution/trailing/, docs/trailing-stops.md).
 */
export interface TrailingStopIntent {
  readonly kind: 'trailing_stop';
  readonly market: MarketName;
  /** sell: protects a long (the trigger rises with the price); buy: protects a short (it falls with it). */
  readonly side: OrderSide;
  readonly amount: Decimal;
  /** Distance of the trigger from the best price seen since placement, in the money currency. */
  readonly trail: Decimal;
  /** The stop moves only when its trigger can move by at least this much (fewer cancel-and-replace round trips). */
  readonly step: Decimal;
  /** The limit price lies this far beyond the trigger (below it for a sell, above it for a buy); 0 = at the trigger. */
  readonly limitOffset: Decimal;
  /** Default 'exit': a trailing stop protects a position. */
  readonly purpose?: 'entry' | 'exit';
  readonly tag?: string;
}

export type Intent = StopLimitIntent | OcoIntent | CancelIntent | TrailingStopIntent;

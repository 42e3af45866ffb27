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

export type Intent = StopLimitIntent | OcoIntent | CancelIntent;

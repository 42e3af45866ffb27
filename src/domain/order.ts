import type { Decimal } from './decimal';
import type { MarketName } from './market';

export type OrderSide = 'buy' | 'sell';
export type ActivationCondition = 'lte' | 'gte';

/** A price or amount given by a caller: a Decimal, a plain decimal string, or (accepted, as the API does) a number. */
export type DecimalInput = Decimal | string | number;

/**
 * What the exchange reports about one order (create, cancel, active list, OCO legs, history).
 * Both spellings of the venue's fields are mapped into this shape at the edge.
 */
export interface OrderReport {
  readonly orderId: number;
  /** Undefined when the order was placed without one (the venue sends ""). */
  readonly clientOrderId: string | undefined;
  readonly market: MarketName;
  readonly side: OrderSide;
  /** Venue type text, e.g. `stop limit`, `limit`, `margin stop limit`. */
  readonly type: string;
  /** Creation time, Unix seconds (fractional). */
  readonly timestamp: number;
  readonly amount: Decimal;
  readonly left: Decimal;
  readonly dealStock: Decimal;
  readonly dealMoney: Decimal;
  readonly dealFee: Decimal;
  readonly price: Decimal | undefined;
  readonly activationPrice: Decimal | undefined;
  readonly activationCondition: ActivationCondition | undefined;
  /** For stop orders: whether the activation condition has been met. Undefined for plain orders. */
  readonly activated: boolean | undefined;
  /** Venue status text (`FILLED`, `PARTIALLY_FILLED`, `CANCELED`, `OPEN`, ...), when sent. */
  readonly status: string | undefined;
}

/** An OCO pair as the exchange reports it. */
export interface OcoReport {
  readonly id: number;
  readonly stopLoss: OrderReport;
  readonly takeProfit: OrderReport;
}

/** A finished order from the order history endpoint. */
export interface HistoryOrderReport extends OrderReport {
  /** Finish time, Unix seconds, when known. */
  readonly finishedAt: number | undefined;
}

/** One of our executed deals (fills). */
export interface DealReport {
  readonly id: number;
  readonly orderId: number;
  readonly clientOrderId: string | undefined;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly time: number;
  readonly amount: Decimal;
  readonly price: Decimal;
  /** Money (quote) value of the deal. */
  readonly deal: Decimal;
  readonly fee: Decimal;
  readonly role: 'maker' | 'taker';
}

/** A kill-switch timer of one market. */
export interface KillSwitchTimer {
  readonly market: MarketName;
  readonly startTime: number;
  readonly cancellationTime: number;
  readonly types: readonly string[] | null;
}

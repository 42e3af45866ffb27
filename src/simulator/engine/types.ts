import type { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import type { ActivationCondition, OrderSide } from '../../domain/order';

/** Which balance an order draws on: spot orders the trading balance, collateral (OCO) legs the collateral balance. */
export type Wallet = 'trading' | 'collateral';

/** Venue `type` text of the orders the simulator creates (exchange-api-extra §9). */
export type SimOrderType = 'limit' | 'stop limit' | 'margin limit' | 'margin stop limit';

/** Venue `status` text: OPEN while resting (as OCO legs show it), then FILLED or CANCELED (one L). */
export type SimOrderStatus = 'OPEN' | 'FILLED' | 'CANCELED';

/**
 * Funds held for an order. Both legs of an OCO share one reserve object: only one leg can execute, so
 * the pair needs the larger of the two requirements once, and whatever is left is released when the
 * group ends.
 */
export interface Reserve {
  readonly wallet: Wallet;
  readonly currency: string;
  remaining: Decimal;
}

/** An order inside the engine. Mutable on purpose: the engine owns it; callers get snapshots via `snapshot()`. */
export interface SimOrder {
  readonly id: number;
  readonly apiKey: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly type: SimOrderType;
  /** "" when none was given (the venue's spelling). */
  readonly clientOrderId: string;
  readonly amount: Decimal;
  /** Limit price (after activation for stop orders). */
  readonly price: Decimal;
  readonly activationPrice: Decimal | undefined;
  readonly activationCondition: ActivationCondition | undefined;
  /** True for plain limit orders; stop orders start false and flip once when the condition holds. */
  activated: boolean;
  activatedAt: number | undefined;
  left: Decimal;
  dealStock: Decimal;
  dealMoney: Decimal;
  dealFee: Decimal;
  status: SimOrderStatus;
  readonly createdAt: number;
  updatedAt: number;
  finishedAt: number | undefined;
  readonly makerFee: Decimal;
  readonly takerFee: Decimal;
  readonly reserve: Reserve;
  /** Set on both legs of an OCO. */
  readonly ocoId: number | undefined;
  /**
   * The client order id the OCO was created with, on both legs, whatever `clientOrderId` they show
   * (the venue answers `""` there but knows the id: it cancels an OCO by it). Never written to an answer.
   */
  readonly ocoClientOrderId?: string;
}

/** An OCO pair: stop-loss leg (stop limit) and take-profit leg (limit). */
export interface SimOco {
  readonly id: number;
  readonly apiKey: string;
  readonly market: MarketName;
  readonly clientOrderId: string;
  readonly stopLoss: SimOrder;
  readonly takeProfit: SimOrder;
}

/** One execution of one of our orders. `role` 1 = maker, 2 = taker, as the venue numbers them. */
export interface SimDeal {
  readonly id: number;
  readonly orderId: number;
  readonly clientOrderId: string;
  readonly apiKey: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly role: 1 | 2;
  readonly time: number;
  readonly amount: Decimal;
  readonly price: Decimal;
  /** Money value amount x price. */
  readonly deal: Decimal;
  /** Fee in the money currency. */
  readonly fee: Decimal;
  readonly feeAsset: string;
}

export interface SimKillSwitch {
  readonly market: MarketName;
  readonly startTime: number;
  readonly cancellationTime: number;
  readonly types: readonly string[] | null;
}

/** What happened while the engine applied a candle or a timer; the backtester and the logs read these. */
export type EngineEvent =
  | { readonly type: 'triggered'; readonly time: number; readonly order: SimOrder }
  | { readonly type: 'filled'; readonly time: number; readonly order: SimOrder; readonly deal: SimDeal }
  | { readonly type: 'canceled'; readonly time: number; readonly order: SimOrder; readonly reason: 'user' | 'oco' | 'kill_switch' };

export interface BalanceEntry {
  available: Decimal;
  freeze: Decimal;
}

/** Starting balances of one account; currencies not named start at zero. */
export interface AccountFunding {
  readonly trading?: Readonly<Record<string, string | Decimal>>;
  /**
   * The collateral account, where OCOs hold their margin: its own balance, empty unless funded here
   * or by a transfer (`SimEngine.transfer`), as on the venue. Never a copy of `trading`.
   */
  readonly collateral?: Readonly<Record<string, string | Decimal>>;
  readonly main?: Readonly<Record<string, string | Decimal>>;
}

export interface PlaceLimitInput {
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: Decimal;
  readonly price: Decimal;
  readonly clientOrderId?: string | undefined;
}

export interface PlaceStopLimitInput extends PlaceLimitInput {
  readonly activationPrice: Decimal;
}

export interface PlaceOcoInput extends PlaceLimitInput {
  /** Stop-loss trigger. */
  readonly activationPrice: Decimal;
  /** Stop-loss limit price once triggered. */
  readonly stopLimitPrice: Decimal;
}

/** `main-account/transfer`: between the main (funding), spot (trading) and collateral balances. */
export interface TransferInput {
  readonly ticker: string;
  readonly amount: Decimal;
  readonly from: 'main' | 'spot' | 'collateral';
  readonly to: 'main' | 'spot' | 'collateral';
}

/** Exactly one of the two. */
export type SimOrderRef = { readonly orderId: number } | { readonly clientOrderId: string };

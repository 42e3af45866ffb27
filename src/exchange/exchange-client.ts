import type { Candle, Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import type { Balances, MarketInfo, MarketName } from '../domain/market';
import type {
  DealReport, DecimalInput, HistoryOrderReport, KillSwitchTimer, OcoReport, OrderReport, OrderSide,
} from '../domain/order';

export type StpMode = 'no' | 'cancel_both' | 'cancel_new' | 'cancel_old';

export interface FetchCandlesRequest {
  readonly market: MarketName;
  readonly interval?: Interval;
  /** Unix seconds. */
  readonly start?: number;
  /** Unix seconds. */
  readonly end?: number;
  /** 1..1440. */
  readonly limit?: number;
}

export interface PlaceStopLimitRequest {
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: DecimalInput;
  readonly price: DecimalInput;
  readonly activationPrice: DecimalInput;
  readonly clientOrderId?: string;
  readonly bboRole?: 1 | 2;
  readonly stp?: StpMode;
}

export interface PlaceOcoRequest {
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: DecimalInput;
  /** Take-profit limit price. */
  readonly price: DecimalInput;
  /** Stop-loss trigger. */
  readonly activationPrice: DecimalInput;
  /** Stop-loss limit price. */
  readonly stopLimitPrice: DecimalInput;
  readonly clientOrderId?: string;
  readonly stp?: StpMode;
}

/** Exactly one of orderId / clientOrderId. */
export type OrderRef =
  | { readonly market: MarketName; readonly orderId: number; readonly clientOrderId?: undefined }
  | { readonly market: MarketName; readonly clientOrderId: string; readonly orderId?: undefined };

export interface ActiveOrdersQuery {
  readonly market?: MarketName;
  readonly orderId?: number;
  readonly clientOrderId?: string;
  /** 1..100 */
  readonly limit?: number;
  readonly offset?: number;
}

export interface HistoryQuery {
  readonly market?: MarketName;
  readonly orderId?: number;
  readonly clientOrderId?: string;
  readonly status?: 'ALL' | 'FILLED' | 'CANCELED' | 'PARTIALLY_FILLED';
  /** Unix seconds. */
  readonly startDate?: number;
  readonly endDate?: number;
  /** 1..500 */
  readonly limit?: number;
  readonly offset?: number;
}

export interface PageQuery {
  readonly limit?: number;
  readonly offset?: number;
}

export interface CodesPage {
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
  readonly data: readonly {
    readonly amount: Decimal;
    readonly code: string;
    readonly date: number;
    readonly status: string;
    readonly ticker: string;
    readonly externalId: string;
  }[];
}

/** One asset of the collateral account (collateral-account/balance-summary). */
export interface CollateralAssetBalance {
  /** What the account holds of the asset. */
  readonly balance: Decimal;
  /** What is borrowed against it (a short position's stock). */
  readonly borrow: Decimal;
  /** Free for new orders (margin) without borrowing: what an OCO can hold. */
  readonly availableWithoutBorrow: Decimal;
  readonly availableWithBorrow: Decimal;
}

/** main-account/transfer: between the main (funding), spot (trading) and collateral balances. */
export interface TransferRequest {
  readonly ticker: string;
  readonly amount: DecimalInput;
  readonly from: 'main' | 'spot' | 'collateral';
  readonly to: 'main' | 'spot' | 'collateral';
}

export interface MiningAccountsPage {
  readonly limit: number;
  readonly offset: number;
  readonly data: readonly { readonly name: string; readonly createdAt: number }[];
}

/**
 * The exchange, as the rest of tradebot sees it. Every method validates its request against the
 * API's rules before sending (RequestValidationError, no network call) and every answer with zod
 * (BadResponseError). Errors follow the two branches of domain/errors.ts.
 */
export interface ExchangeClient {
  ping(): Promise<boolean>;
  /** Server time in Unix ms. */
  fetchServerTime(): Promise<number>;
  fetchMarkets(): Promise<MarketInfo[]>;
  /** Candles in ascending time; the last one may still be open. */
  fetchCandles(request: FetchCandlesRequest): Promise<Candle[]>;

  fetchTradingBalances(ticker?: string): Promise<Balances>;
  fetchMainBalances(): Promise<Readonly<Record<string, Decimal>>>;
  /** The collateral account's balance per asset (OCO margin lives here). */
  fetchCollateralBalances(ticker?: string): Promise<Readonly<Record<string, Decimal>>>;
  /** The collateral account per asset with what is free for new orders (`availableWithoutBorrow`). */
  fetchCollateralBalanceSummary(ticker?: string): Promise<Readonly<Record<string, CollateralAssetBalance>>>;
  /** Moves funds between the main, spot and collateral balances (e.g. to fund OCO margin). */
  transferBetweenBalances(request: TransferRequest): Promise<void>;

  placeStopLimit(request: PlaceStopLimitRequest): Promise<OrderReport>;
  placeOco(request: PlaceOcoRequest): Promise<OcoReport>;
  cancelOrder(ref: OrderRef): Promise<OrderReport>;
  /** `orderId` here is the OCO id. */
  cancelOco(ref: OrderRef): Promise<OcoReport>;

  fetchActiveOrders(query?: ActiveOrdersQuery): Promise<OrderReport[]>;
  fetchActiveOcoOrders(query: { readonly market: MarketName } & PageQuery): Promise<OcoReport[]>;
  fetchOrderHistory(query?: HistoryQuery): Promise<HistoryOrderReport[]>;
  fetchExecutedDeals(query?: Omit<HistoryQuery, 'status' | 'orderId'>): Promise<DealReport[]>;

  /** timeoutSeconds 5..600 arms or refreshes; null deletes the timer. */
  setKillSwitch(request: {
    readonly market: MarketName;
    readonly timeoutSeconds: number | null;
    readonly types?: readonly ('spot' | 'margin' | 'futures')[];
  }): Promise<KillSwitchTimer | null>;
  fetchKillSwitchStatus(market?: MarketName): Promise<KillSwitchTimer[]>;

  fetchCodes(query?: PageQuery): Promise<CodesPage>;
  fetchMiningAccounts(query?: { readonly name?: string }): Promise<MiningAccountsPage>;
  issueJwt(): Promise<{ readonly token: string; readonly expiresAt: number }>;
  fetchWebsocketToken(): Promise<string>;
}

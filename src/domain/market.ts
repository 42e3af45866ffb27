import type { Decimal } from './decimal';

/** Market name, form `<STOCK>_<MONEY>`, e.g. `BTC_USDT`. */
export type MarketName = string;
export const MARKET_NAME = /^[A-Z0-9]{1,20}_[A-Z0-9]{1,20}$/;

/** A market as the markets endpoint describes it. Fees are ratios (0.001 = 0.1 %), converted from the venue's percent. */
export interface MarketInfo {
  readonly name: MarketName;
  readonly stock: string;
  readonly money: string;
  /** Max decimals of an amount. */
  readonly stockPrec: number;
  /** Max decimals of a price or total. */
  readonly moneyPrec: number;
  readonly feePrec: number;
  readonly minAmount: Decimal;
  readonly minTotal: Decimal;
  /** Zero means no limit. */
  readonly maxTotal: Decimal;
  readonly makerFee: Decimal;
  readonly takerFee: Decimal;
  readonly tradesEnabled: boolean;
  readonly isCollateral: boolean;
  readonly type: string;
}

/** A currency balance of the spot trading account. */
export interface Balance {
  readonly available: Decimal;
  readonly freeze: Decimal;
}
export type Balances = Readonly<Record<string, Balance>>;

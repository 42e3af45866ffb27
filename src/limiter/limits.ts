/**
 * The exchange's rate limits as data: requests per 10 s window, per IP. Every client call names one
 * limit id. Where the sources disagree we budget for the lower number (see exchange-api-extra §4).
 */
export const LIMITS = {
  kline: { capacity: 1000, windowMs: 10_000 },
  public: { capacity: 2000, windowMs: 10_000 },
  orders: { capacity: 10_000, windowMs: 10_000 },
  /** Active-order lists (orders, oco-orders, conditional-orders): 12 000 in new docs, 1 000 in old. */
  activeOrders: { capacity: 1000, windowMs: 10_000 },
  tradeAccount: { capacity: 12_000, windowMs: 10_000 },
  mainAccount: { capacity: 1000, windowMs: 10_000 },
  /**
   * collateral-account/balance and balance-summary: 12 000 in the OpenAPI descriptions, 100 on the
   * documentation page of collateral-account/balance: budget for 100.
   */
  collateralAccount: { capacity: 100, windowMs: 10_000 },
  /** Everything else (profile, jwt, mining): the exchange's default budget. */
  private: { capacity: 10_000, windowMs: 10_000 },
} as const satisfies Record<string, LimitSpec>;

export interface LimitSpec {
  /** Requests allowed per window; also the bucket size (burst). */
  readonly capacity: number;
  readonly windowMs: number;
}

export type LimitId = keyof typeof LIMITS;
export type LimitTable = Readonly<Record<LimitId, LimitSpec>>;

export const LIMIT_IDS = Object.keys(LIMITS) as LimitId[];

import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';

/**
 * Pre-trade limits, as data (config provides them). Every field is optional: an absent limit
 * disables its check. Money values are in the market's money (quote) currency.
 */
export interface MarketRiskLimits {
  /** Max notional (amount x price, worst leg for an OCO) of one new order. */
  readonly maxOrderNotional?: Decimal | undefined;
  /** Max notional of all our open orders on the market plus the new one. */
  readonly maxMarketNotional?: Decimal | undefined;
  /** Max open orders of one strategy on one market (an OCO counts as one). */
  readonly maxOpenOrdersPerStrategy?: number | undefined;
  /** Fat-finger guard: |price / lastPrice - 1| <= priceBand for price, activation and stop-limit prices (0.05 = 5 %). */
  readonly priceBand?: Decimal | undefined;
  /** Extra money a buy must have available on top of amount x price, as a ratio (0.002 = 0.2 %) to cover fees. */
  readonly feeMargin?: Decimal | undefined;
  /** Turn the balance check off (e.g. a backtest without a portfolio). Default on. */
  readonly checkBalance?: boolean | undefined;
}

export interface RiskLimits extends MarketRiskLimits {
  /**
   * Realised loss (a positive number, in the accounts' common money currency) after which new
   * entries are denied until the next UTC day. Exits and cancels still pass.
   */
  readonly dailyLossLimit?: Decimal | undefined;
  /** Per-market overrides of the fields above (field by field). */
  readonly markets?: Readonly<Record<MarketName, MarketRiskLimits>> | undefined;
}

/** The limits that apply to one market: its overrides on top of the defaults. */
export function limitsFor(limits: RiskLimits, market: MarketName): MarketRiskLimits {
  const override = limits.markets?.[market];
  if (override === undefined) return limits;
  const merged: Record<string, unknown> = { ...limits };
  for (const [key, value] of Object.entries(override)) if (value !== undefined) merged[key] = value;
  return merged as MarketRiskLimits;
}

/**
 * Helpers shared by the example strategies. Files starting with `_` are not loaded as strategies,
 * but strategies may import them (the loader transpiles them the same way).
 */
import { Decimal, z, type MarketInfo, type StrategyContext } from 'tradebot/strategy';

/** A money amount in config: a plain decimal string such as "100" (never a float). */
export const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'a plain decimal such as "100" or "0.5"');

/** A ratio such as 0.002 (0.2 %) as a number in config; converted to Decimal exactly via its shortest text. */
export function ratio(value: number): Decimal {
  return new Decimal(String(value));
}

/** Stock amount buying `notional` of money at `price`, rounded DOWN to the market's amount precision. */
export function amountForNotional(notional: Decimal, price: Decimal, info: MarketInfo | undefined): Decimal {
  return notional.dividedBy(price).toDecimalPlaces(info?.stockPrec ?? 8, Decimal.ROUND_DOWN);
}

/** Price rounded to the market's price precision (2 decimals when unknown). */
export function roundPrice(price: Decimal, info: MarketInfo | undefined): Decimal {
  return price.toDecimalPlaces(info?.moneyPrec ?? 2, Decimal.ROUND_HALF_UP);
}

/** Available balance of the market's stock currency, or undefined when balances are unknown. */
export function stockAvailable(ctx: StrategyContext<unknown, unknown>): Decimal | undefined {
  const stock = ctx.marketInfo?.stock ?? ctx.market.split('_')[0] ?? '';
  return ctx.balances[stock]?.available;
}

/**
 * Did an order we placed fill (rather than get canceled)? When balances are known, holding at
 * least 99 % of the amount says yes; when they are not (unit tests, some backtests), assume filled.
 */
export function looksFilled(ctx: StrategyContext<unknown, unknown>, amount: Decimal): boolean {
  const held = stockAvailable(ctx);
  return held === undefined || held.greaterThanOrEqualTo(amount.times('0.99'));
}

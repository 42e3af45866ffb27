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

/**
 * How much of the market's stock THIS strategy holds: its position from its own fills (ctx.position),
 * never the account's balance, which other strategies (and the operator) move too. On an account
 * shared by strategies, another one's purchase must not look like our entry filling, and our exit
 * must not sell what another one bought.
 */
export function heldStock(ctx: StrategyContext<unknown, unknown>): Decimal {
  return ctx.position.amount;
}

/** Did an order we placed fill (rather than get canceled)? Holding at least 99 % of its amount says yes. */
export function looksFilled(ctx: StrategyContext<unknown, unknown>, amount: Decimal): boolean {
  return heldStock(ctx).greaterThanOrEqualTo(amount.times('0.99'));
}

import { Decimal } from '../../domain/decimal';
import type { Balances } from '../../domain/market';
import type { PositionState } from '../../portfolio/portfolio';
import type { OpenOrderView } from '../open-order-view';
import { viewNotional } from '../risk-checks';
import type { StrategyBudget } from './guard-rules';

const ZERO = new Decimal(0);

/** What one strategy's budget allows now, in the money currency (metrics, the console, a denial's text). */
export interface BudgetView {
  /** The money the budget gives the strategy (a share of the capital, or its amount). */
  readonly allocated: Decimal;
  /** Its realised PnL (fees included): losses shrink what it may spend, gains grow it. */
  readonly realized: Decimal;
  /** Money in its positions (cost basis) and in its open entry orders (notional). */
  readonly committed: Decimal;
  /** allocated + realized - committed. */
  readonly available: Decimal;
}

/** Everything the budget reads, as the risk gate knows it when an intent is checked. */
export interface BudgetInputs {
  readonly money: string;
  readonly balances: Balances;
  /** The price of `stock_money` as last marked (undefined: the currency is not counted). */
  readonly priceOf: (market: string) => Decimal | undefined;
  /** Every (strategy, market) of the portfolio. */
  readonly positions: readonly PositionState[];
  /** The strategy's open orders on every market. */
  readonly openOrders: readonly OpenOrderView[];
}

/**
 * The account's capital in `money`: the trading balance valued at the marked prices, less what every
 * strategy made or lost (realised and unrealised), so one strategy's loss does not shrink the others'
 * shares, while a deposit or a withdrawal does move every share.
 */
export function accountCapital(i: BudgetInputs): Decimal {
  let value = ZERO;
  for (const [currency, b] of Object.entries(i.balances)) {
    const total = b.available.plus(b.freeze);
    if (currency === i.money) value = value.plus(total);
    else {
      const price = i.priceOf(`${currency}_${i.money}`);
      if (price !== undefined) value = value.plus(total.times(price));
    }
  }
  for (const p of i.positions) {
    if (!p.market.endsWith(`_${i.money}`)) continue;
    value = value.minus(p.realizedPnl);
    const price = i.priceOf(p.market);
    if (price !== undefined && !p.amount.isZero()) value = value.minus(p.amount.times(price.minus(p.averageEntry)));
  }
  return value;
}

/** What `strategy` may still commit under `budget`. */
export function budgetView(strategy: string, budget: StrategyBudget, i: BudgetInputs): BudgetView {
  const allocated = budget.amount ?? budget.share.times(accountCapital(i));
  let realized = ZERO;
  let committed = ZERO;
  for (const p of i.positions) {
    if (p.strategy !== strategy || !p.market.endsWith(`_${i.money}`)) continue;
    realized = realized.plus(p.realizedPnl);
    if (!p.amount.isZero()) committed = committed.plus(p.amount.abs().times(p.averageEntry));
  }
  for (const o of i.openOrders) {
    if (o.strategy !== strategy || o.purpose === 'exit' || !o.market.endsWith(`_${i.money}`)) continue;
    committed = committed.plus(viewNotional(o));
  }
  return { allocated, realized, committed, available: allocated.plus(realized).minus(committed) };
}

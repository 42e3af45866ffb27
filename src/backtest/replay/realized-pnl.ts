import { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import type { OrderSide } from '../../domain/order';

const ZERO = new Decimal(0);

/**
 * Realised PnL per fill, for the risk engine's daily loss limit (the report computes its own FIFO
 * round trips). Average cost per market: a buy adds amount and cost (fee included); a sell realises
 * `amount x price - fee - average cost x amount` on the part covered by bought stock. Stock held from
 * the start has no cost basis: selling it realises only its fee as a loss.
 */
export class RealizedPnl {
  private readonly positions = new Map<MarketName, { qty: Decimal; cost: Decimal }>();

  /** Returns the PnL this fill realised (zero for a buy). */
  onFill(market: MarketName, side: OrderSide, amount: Decimal, price: Decimal, fee: Decimal): Decimal {
    let p = this.positions.get(market);
    if (p === undefined) {
      p = { qty: ZERO, cost: ZERO };
      this.positions.set(market, p);
    }
    if (side === 'buy') {
      p.qty = p.qty.plus(amount);
      p.cost = p.cost.plus(amount.times(price)).plus(fee);
      return ZERO;
    }
    const covered = Decimal.min(amount, p.qty);
    if (covered.isZero()) return fee.negated();
    const basis = p.cost.times(covered).dividedBy(p.qty);
    p.cost = p.cost.minus(basis);
    p.qty = p.qty.minus(covered);
    return covered.times(price).minus(basis).minus(fee);
  }
}

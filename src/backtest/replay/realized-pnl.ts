import { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';
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

  /**
   * Returns the PnL this fill realised (zero for a buy). `money` is amount x price when the caller
   * has it (the engine's deal value), saving a multiplication per fill.
   */
  onFill(market: MarketName, side: OrderSide, amount: Decimal, price: Decimal, fee: Decimal, money?: Decimal): Decimal {
    let p = this.positions.get(market);
    if (p === undefined) {
      p = { qty: ZERO, cost: ZERO };
      this.positions.set(market, p);
    }
    const value = money ?? amount.times(price);
    if (side === 'buy') {
      p.qty = p.qty.isZero() ? amount : p.qty.plus(amount);
      p.cost = p.cost.plus(value).plus(fee);
      return ZERO;
    }
    const vsHeld = compareDecimals(amount, p.qty);
    const covered = vsHeld >= 0 ? p.qty : amount;
    if (covered.isZero()) return fee.negated();
    if (vsHeld >= 0) {
      // The whole position is sold (the common exit): its basis is the whole cost, no division.
      const basis = p.cost;
      const realized = (vsHeld === 0 ? value : covered.times(price)).minus(basis).minus(fee);
      p.cost = ZERO;
      p.qty = ZERO;
      return realized;
    }
    const basis = p.cost.times(covered).dividedBy(p.qty);
    p.cost = p.cost.minus(basis);
    p.qty = p.qty.minus(covered);
    return value.minus(basis).minus(fee);
  }
}

import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import { deriveClientOrderId } from '../../../src/core/client-order-id';
import type { StampedIntent } from '../../../src/strategy/intent-validation';
import type { OpenOrderView } from '../../../src/risk/open-order-view';
import type { StrategyHostView } from '../../../src/strategy/strategy-host';

/**
 * A toy order book for strategy tests (not the simulator): rests the strategies' orders and fills
 * them when a later candle crosses their trigger, so strategies see realistic open orders,
 * balances and their position. Limit legs fill at their limit price.
 */
export class PaperBook {
  orders: OpenOrderView[] = [];
  fills: { side: string; price: string; time: number }[] = [];
  money: Decimal;
  stock = new Decimal(0);

  constructor(private readonly market: string, startMoney = '10000') {
    this.money = new Decimal(startMoney);
  }

  apply(stamped: readonly StampedIntent[]): void {
    for (const s of stamped) {
      const i = s.intent;
      if (i.kind === 'cancel') {
        this.orders = this.orders.filter((o) => o.clientOrderId !== i.clientOrderId);
        continue;
      }
      if (i.kind === 'trailing_stop') throw new Error('this paper book does not model trailing stops');
      const clientOrderId = deriveClientOrderId({ strategy: s.strategy, market: i.market, candleTime: s.candleTime, leg: i.kind === 'oco' ? 'tp' : 'o', tag: i.tag });
      this.orders.push({
        clientOrderId, strategy: s.strategy, market: i.market, side: i.side, kind: i.kind, amount: i.amount, price: i.price,
        activationPrice: i.activationPrice, stopLimitPrice: i.kind === 'oco' ? i.stopLimitPrice : undefined, purpose: i.purpose, candleTime: s.candleTime,
      });
    }
  }

  /** Fills what this candle reached (call before handing the candle to the host). */
  match(c: Candle): void {
    this.orders = this.orders.filter((o) => {
      let price: Decimal | undefined;
      if (o.kind === 'oco') {
        if (c.low.lessThanOrEqualTo(o.activationPrice!)) price = o.stopLimitPrice!;
        else if (c.high.greaterThanOrEqualTo(o.price)) price = o.price;
      } else if (o.side === 'buy' ? c.high.greaterThanOrEqualTo(o.activationPrice!) : c.low.lessThanOrEqualTo(o.activationPrice!)) {
        price = o.price;
      }
      if (price === undefined) return true;
      if (o.side === 'buy') { this.money = this.money.minus(o.amount.times(price)); this.stock = this.stock.plus(o.amount); }
      else { this.money = this.money.plus(o.amount.times(price)); this.stock = this.stock.minus(o.amount); }
      this.fills.push({ side: o.side, price: price.toString(), time: c.time });
      return false;
    });
  }

  view(): StrategyHostView {
    const [stock, money] = this.market.split('_') as [string, string];
    return {
      balances: () => ({ [stock]: { available: this.stock, freeze: new Decimal(0) }, [money]: { available: this.money, freeze: new Decimal(0) } }),
      openOrders: (strategy, market) => this.orders.filter((o) => o.strategy === strategy && o.market === market),
      // One strategy per book: what it holds is the book's stock.
      position: () => ({ amount: this.stock, averageEntry: undefined, unrealizedPnl: new Decimal(0) }),
    };
  }
}

import { Decimal } from '../../domain/decimal';
import type { MarketInfo, MarketName } from '../../domain/market';
import type { Ledger } from './ledger';
import { isMarketable } from './matching';
import type { OcoCancelOn } from '../../domain/fill-model';
import type { Liquidity } from './liquidity';
import type { OrderBook } from './order-book';
import type { EngineEvent, SimDeal, SimOrder } from './types';

const ZERO = new Decimal(0);

export type CancelReason = 'user' | 'oco' | 'kill_switch';

/**
 * What happens to an order once the engine decided it: trigger (a stop becomes a limit, and fills at
 * once as taker if marketable at the trigger price), fill (as much as the liquidity allows: balances
 * move, one deal recorded per fill), cancel (funds released, deals kept), and the OCO rule (a leg's
 * first deal cancels the other leg, or with `ocoCancelOn: 'trigger'` already the stop's trigger;
 * legs share one reserve).
 */
export class OrderExecution {
  private nextDealId = 1;

  constructor(
    private readonly book: OrderBook,
    private readonly ledgerOf: (apiKey: string) => Ledger,
    private readonly marketOf: (name: MarketName) => MarketInfo,
    private readonly emit: (event: EngineEvent) => void,
    private readonly ocoCancelOn: OcoCancelOn,
  ) {}

  trigger(order: SimOrder, price: Decimal, time: number, liquidity: Liquidity): void {
    order.activated = true;
    order.activatedAt = time;
    order.updatedAt = time;
    this.book.levelsChanged(order.market);
    this.emit({ type: 'triggered', time, order });
    if (this.ocoCancelOn === 'trigger') this.cancelSibling(order, time);
    if (isMarketable(order.side, order.price, price)) this.fill(order, price, 2, time, liquidity);
  }

  /** Fills what `liquidity` allows of the order's rest at `price`: one deal. Nothing when it allows nothing. */
  fill(order: SimOrder, price: Decimal, role: 1 | 2, time: number, liquidity: Liquidity): void {
    const info = this.marketOf(order.market);
    const amount = liquidity.take(order.left, info.stockPrec);
    if (amount.isZero()) return;
    const ledger = this.ledgerOf(order.apiKey);
    const money = amount.times(price);
    const fee = money.times(role === 1 ? order.makerFee : order.takerFee);
    if (order.side === 'buy') {
      ledger.spend(order.reserve, money.plus(fee));
      ledger.credit(order.reserve.wallet, info.stock, amount);
    } else if (order.reserve.currency === info.stock) {
      ledger.spend(order.reserve, amount);
      ledger.credit(order.reserve.wallet, info.money, money.minus(fee));
    } else {
      // A sell held as margin in money (collateral OCO, 'separate' mode): the stock leaves the
      // collateral account, below zero when it holds none (a short), and the proceeds come in.
      ledger.debit(order.reserve.wallet, info.stock, amount);
      ledger.credit(order.reserve.wallet, info.money, money.minus(fee));
    }
    const firstDeal = order.dealStock.isZero();
    order.left = amount === order.left ? ZERO : order.left.minus(amount);
    // A complete first fill (the common case) needs no addition.
    order.dealStock = addTo(order.dealStock, amount);
    order.dealMoney = addTo(order.dealMoney, money);
    order.dealFee = addTo(order.dealFee, fee);
    order.updatedAt = time;
    if (order.left.isZero()) {
      order.status = 'FILLED';
      order.finishedAt = time;
      ledger.release(order.reserve);
      this.book.finish(order);
    }
    const deal: SimDeal = {
      id: this.nextDealId++, orderId: order.id, clientOrderId: order.clientOrderId, apiKey: order.apiKey, market: order.market,
      side: order.side, role, time, amount, price, deal: money, fee, feeAsset: info.money,
    };
    this.book.recordDeal(deal);
    this.emit({ type: 'filled', time, order, deal });
    // A leg executing ends the other one (the venue's OCO rule).
    if (firstDeal) this.cancelSibling(order, time);
  }

  cancel(order: SimOrder, reason: CancelReason, time: number): void {
    if (order.status !== 'OPEN') return;
    order.status = 'CANCELED';
    order.updatedAt = time;
    order.finishedAt = time;
    this.book.finish(order);
    const sibling = this.sibling(order);
    // OCO legs share one reserve: keep it while the other leg may still execute.
    if (sibling === undefined || sibling.status !== 'OPEN') this.ledgerOf(order.apiKey).release(order.reserve);
    this.emit({ type: 'canceled', time, order, reason });
    if (reason === 'user' || reason === 'kill_switch') this.cancelSibling(order, time, reason);
  }

  private cancelSibling(order: SimOrder, time: number, reason: CancelReason = 'oco'): void {
    const sibling = this.sibling(order);
    if (sibling !== undefined && sibling.status === 'OPEN') this.cancel(sibling, reason === 'user' ? 'oco' : reason, time);
  }

  private sibling(order: SimOrder): SimOrder | undefined {
    if (order.ocoId === undefined) return undefined;
    const oco = this.book.getOco(order.ocoId);
    if (oco === undefined) return undefined;
    return oco.stopLoss === order ? oco.takeProfit : oco.stopLoss;
  }
}

function addTo(total: Decimal, amount: Decimal): Decimal {
  return total.isZero() ? amount : total.plus(amount);
}

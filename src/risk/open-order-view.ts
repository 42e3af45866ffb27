import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { OrderSide } from '../domain/order';

/**
 * A read-only view of one of our open orders, as the host caller (daemon or backtest) knows it.
 * Strategies see their own open orders through `ctx.openOrders` (to avoid piling up entries);
 * the risk engine sees every strategy's open orders (notional per market, order counts).
 * An OCO pair is ONE view (kind `oco`), not two legs.
 */
export interface OpenOrderView {
  readonly clientOrderId: string;
  readonly strategy: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly kind: 'stop_limit' | 'oco' | 'limit';
  /** Amount still open (not yet filled), in the stock currency. */
  readonly amount: Decimal;
  /** Limit price (take-profit price for an OCO). */
  readonly price: Decimal;
  readonly activationPrice?: Decimal | undefined;
  /** OCO stop-loss limit price. */
  readonly stopLimitPrice?: Decimal | undefined;
  readonly purpose?: 'entry' | 'exit' | undefined;
  /** Open time of the candle whose intent created the order, when known. */
  readonly candleTime?: number | undefined;
}

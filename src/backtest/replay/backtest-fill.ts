import type { Decimal } from '../../domain/decimal';
import type { MarketName } from '../../domain/market';
import type { OrderSide } from '../../domain/order';

/** One simulated execution. Markets are `<BASE>_<QUOTE>`; the fee is always charged in the quote currency. */
export interface BacktestFill {
  /** Unix seconds (may be fractional). */
  readonly time: number;
  readonly market: MarketName;
  readonly side: OrderSide;
  /** Base amount, > 0. */
  readonly amount: Decimal;
  readonly price: Decimal;
  /** Fee in the quote currency, >= 0. */
  readonly fee: Decimal;
  readonly clientOrderId: string;
  readonly role: 'maker' | 'taker';
  /** Which order filled: a stop-limit, or the take-profit / stop-loss leg of an OCO (the trades' entry and exit reasons). */
  readonly orderKind?: FillOrderKind | undefined;
}

export type FillOrderKind = 'stop_limit' | 'oco_take_profit' | 'oco_stop_loss';

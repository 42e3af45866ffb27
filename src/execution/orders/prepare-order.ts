import { intervalSeconds } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { compareDecimals, productOf } from '../../domain/decimal-compare';
import type { OcoIntent, StopLimitIntent } from '../../domain/intent';
import type { MarketInfo } from '../../domain/market';
import { checkSize, roundActivationPrice, roundAmount, roundLimitPrice } from '../../domain/rounding';
import type { NewOrderRecord } from '../../store/order-store-port';
import type { StampedIntent } from '../../strategy/intent-validation';
import { deriveClientOrderId } from '../../core/client-order-id';
import { ocoLegIds } from '../journal/oco-ids';

/** Available balance of a currency in the account the order draws on; undefined = not known (check skipped). */
export interface BalanceView {
  available(currency: string, wallet: 'trading' | 'collateral'): Decimal | undefined;
  /**
   * The wallet an OCO draws on (domain/collateral.ts ocoWallet): 'collateral' on the venue and in
   * paper mode (default), 'trading' in a backtest with `--collateral unified`.
   */
  readonly ocoWallet?: 'trading' | 'collateral';
}

/** An intent rounded and checked, with the journal records to write (one, or two OCO legs). */
export interface PreparedOrder {
  readonly kind: 'stop_limit' | 'oco';
  /** The intent with every money field rounded to the market's precision. */
  readonly intent: StopLimitIntent | OcoIntent;
  /**
   * Journal records; for an OCO the stop-loss leg first (its id is the one sent). Both OCO records
   * carry the whole OCO (price = take-profit, activation + stopLimitPrice = stop-loss), as the journal's
   * field docs say, so either leg alone can rebuild the request.
   */
  readonly records: readonly NewOrderRecord[];
  /** The clientOrderId sent to the exchange. */
  readonly sentClientOrderId: string;
}

export type Preparation = { readonly ok: true; readonly order: PreparedOrder } | { readonly ok: false; readonly rule: string; readonly reason: string };

/**
 * Rounding (domain/rounding.ts), the market's size limits and the balance check. Pure apart from reading
 * the balance view; nothing is journaled or sent here.
 */
export function prepareOrder(stamped: StampedIntent, market: MarketInfo, balances: BalanceView | undefined): Preparation {
  const intent = stamped.intent;
  if (intent.kind === 'cancel') return { ok: false, rule: 'kind', reason: 'cancel intents are not orders' };
  // Its legs come here as stop-limits (execution/trailing/).
  if (intent.kind === 'trailing_stop') return { ok: false, rule: 'kind', reason: 'a trailing stop is placed as stop-limit legs' };
  const side = intent.side;
  const amount = roundAmount(intent.amount, market);
  const price = roundLimitPrice(intent.price, side, market);
  const activationPrice = roundActivationPrice(intent.activationPrice, side, market);
  const candleCloseTime = stamped.candleTime + intervalSeconds(stamped.interval);
  // Object literals, not spreads: this runs for every order of a backtest.
  const unchanged = amount === intent.amount && price === intent.price && activationPrice === intent.activationPrice;

  if (intent.kind === 'stop_limit') {
    const size = checkSize(amount, [price], market);
    if (!size.ok) return size;
    const funds = checkFunds(balances, market, 'trading', side, amount, price);
    if (!funds.ok) return funds;
    // deriveClientOrderId directly (stopLimitId's object spread showed in profiles); the same id.
    const cid = deriveClientOrderId({ strategy: stamped.strategy, market: intent.market, candleTime: stamped.candleTime, tag: intent.tag, leg: 'o' });
    return {
      ok: true,
      order: {
        kind: 'stop_limit',
        intent: unchanged ? intent : { ...intent, amount, price, activationPrice },
        records: [{
          strategy: stamped.strategy, market: intent.market, side, amount, activationPrice, candleTime: stamped.candleTime,
          candleCloseTime, clientOrderId: cid, kind: 'stop_limit', price, purpose: intent.purpose,
          strategyVersion: stamped.identity?.version, strategyParams: stamped.identity?.params,
        }],
        sentClientOrderId: cid,
      },
    };
  }

  const stopLimitPrice = roundLimitPrice(intent.stopLimitPrice, side, market);
  const size = checkSize(amount, [price, stopLimitPrice], market);
  if (!size.ok) return size;
  // Only one leg can execute; the venue holds the worse of the two once.
  const worst = compareDecimals(price, stopLimitPrice) > 0 ? price : stopLimitPrice;
  const funds = checkFunds(balances, market, balances?.ocoWallet ?? 'collateral', side, amount, worst);
  if (!funds.ok) return funds;
  const legs = ocoLegIds({ strategy: stamped.strategy, market: intent.market, candleTime: stamped.candleTime, tag: intent.tag });
  const record = (clientOrderId: string, kind: 'oco_sl' | 'oco_tp'): NewOrderRecord => ({
    strategy: stamped.strategy, market: intent.market, side, amount, activationPrice, candleTime: stamped.candleTime,
    candleCloseTime, clientOrderId, kind, price, stopLimitPrice, purpose: intent.purpose,
    strategyVersion: stamped.identity?.version, strategyParams: stamped.identity?.params,
  });
  return {
    ok: true,
    order: {
      kind: 'oco',
      intent: unchanged && stopLimitPrice === intent.stopLimitPrice ? intent : { ...intent, amount, price, activationPrice, stopLimitPrice },
      records: [record(legs.sl, 'oco_sl'), record(legs.tp, 'oco_tp')],
      sentClientOrderId: legs.sl,
    },
  };
}

function checkFunds(
  balances: BalanceView | undefined, market: MarketInfo, wallet: 'trading' | 'collateral', side: 'buy' | 'sell', amount: Decimal, price: Decimal,
): { ok: true } | { ok: false; rule: string; reason: string } {
  if (balances === undefined) return { ok: true };
  // The collateral (margin) account holds money for an OCO of either side; spot sells hold the stock.
  const inMoney = side === 'buy' || wallet === 'collateral';
  const currency = inMoney ? market.money : market.stock;
  const available = balances.available(currency, wallet);
  if (available === undefined) return { ok: true }; // unknown: the exchange checks it anyway
  const needed = inMoney ? productOf(amount, price).times(holdFactor(market)) : amount;
  if (compareDecimals(available, needed) < 0) {
    return { ok: false, rule: 'balance', reason: `needs ${needed.toString()} ${currency} (${wallet}), ${available.toString()} available` };
  }
  return { ok: true };
}

const holdFactors = new WeakMap<MarketInfo, Decimal>();

/** 1 + the larger fee: money held includes it on top of the total (the venue holds it the same way). */
function holdFactor(market: MarketInfo): Decimal {
  let factor = holdFactors.get(market);
  if (factor === undefined) {
    const fee = compareDecimals(market.takerFee, market.makerFee) > 0 ? market.takerFee : market.makerFee;
    factor = fee.plus(1);
    holdFactors.set(market, factor);
  }
  return factor;
}

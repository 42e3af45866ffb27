import type { Decimal } from '../../domain/decimal';
import type { BalanceEntry, SimDeal, SimKillSwitch, SimOco, SimOrder } from '../engine/types';

/**
 * Engine objects -> JSON answers, exactly in the spelling the spec gives (snake_case order fields
 * with `postOnly` and `activationCondition` camel, as the spec's stop-limit table lists them). For
 * endpoints the spec does not describe (history, deals, kill-switch) the exchange documentation's
 * spelling is used (exchange-api-extra §6, §7). One function per shape, nothing else.
 *
 * `status` of a resting order is "OPEN" (as OCO legs show it), then "FILLED" / "CANCELED".
 */
type Json = Record<string, unknown>;

const s = (d: Decimal): string => d.toString();

/** The fields both order shapes of the spec start with, in the spec's order. */
function leadingOrderFields(o: SimOrder): Json {
  return {
    order_id: o.id,
    client_order_id: o.clientOrderId,
    market: o.market,
    side: o.side,
    type: o.type,
    timestamp: o.createdAt,
    deal_money: s(o.dealMoney),
    deal_stock: s(o.dealStock),
    amount: s(o.amount),
  };
}

/** Stop-limit (and plain limit) order: create, cancel, active list. */
export function orderJson(o: SimOrder): Json {
  const base: Json = {
    ...leadingOrderFields(o),
    left: s(o.left),
    deal_fee: s(o.dealFee),
    price: s(o.price),
    postOnly: false,
    ioc: false,
    status: o.status,
    stp: 'no',
    rpi: false,
  };
  if (o.activationPrice !== undefined) {
    base['activated'] = o.activated ? 1 : 0;
    base['activationCondition'] = o.activationCondition;
    base['activation_price'] = s(o.activationPrice);
  }
  return base;
}

/** One leg of an OCO as the spec's OCO table lists it. */
export function ocoLegJson(o: SimOrder): Json {
  const leg: Json = {
    ...leadingOrderFields(o),
    takerFee: s(o.takerFee),
    makerFee: s(o.makerFee),
    left: s(o.left),
    deal_fee: s(o.dealFee),
    post_only: false,
    mtime: o.updatedAt,
    price: s(o.price),
    status: o.status,
    stp: 'no',
  };
  if (o.activationPrice !== undefined) {
    leg['activation_price'] = s(o.activationPrice);
    leg['activation_condition'] = o.activationCondition;
    leg['activated'] = o.activated ? 1 : 0;
  }
  return leg;
}

export function ocoJson(oco: SimOco, withReduceOnly = false): Json {
  const out: Json = { id: oco.id, stop_loss: ocoLegJson(oco.stopLoss), take_profit: ocoLegJson(oco.takeProfit) };
  if (withReduceOnly) out['reduceOnly'] = false;
  return out;
}

/** Finished order row of trade-account/order/history (documentation spelling). */
export function historyJson(o: SimOrder): Json {
  const row: Json = {
    id: o.id,
    clientOrderId: o.clientOrderId,
    side: o.side,
    type: o.type,
    amount: s(o.amount),
    price: s(o.price),
    ctime: o.createdAt,
    ftime: o.finishedAt ?? o.updatedAt,
    dealStock: s(o.dealStock),
    dealMoney: s(o.dealMoney),
    dealFee: s(o.dealFee),
    feeAsset: o.market.split('_')[1] ?? '',
    postOnly: false,
    ioc: false,
    status: o.status,
    positionSide: 'BOTH',
    rpi: false,
    reduceOnly: false,
  };
  if (o.activationPrice !== undefined) {
    row['activationPrice'] = s(o.activationPrice);
    row['activationCondition'] = o.activationCondition === 'gte' ? '>=' : '<=';
    if (o.activatedAt !== undefined) row['activated'] = o.activatedAt;
  }
  return row;
}

/** Deal row of trade-account/executed-history (documentation spelling). */
export function dealJson(d: SimDeal): Json {
  return {
    id: d.id,
    clientOrderId: d.clientOrderId,
    time: d.time,
    side: d.side,
    role: d.role,
    amount: s(d.amount),
    price: s(d.price),
    deal: s(d.deal),
    fee: s(d.fee),
    orderId: d.orderId,
    feeAsset: d.feeAsset,
  };
}

export function killSwitchJson(t: SimKillSwitch): Json {
  return { market: t.market, startTime: t.startTime, cancellationTime: t.cancellationTime, types: t.types };
}

export function tradingBalanceJson(balances: ReadonlyMap<string, BalanceEntry>, ticker?: string): Json {
  const out: Json = {};
  for (const [currency, entry] of balances) {
    if (ticker === undefined || ticker === currency) out[currency] = { available: s(entry.available), freeze: s(entry.freeze) };
  }
  return out;
}

/** Main balance: assets with a zero balance are omitted, as the spec says. */
export function mainBalanceJson(balances: ReadonlyMap<string, Decimal>): Json {
  const out: Json = {};
  for (const [currency, amount] of balances) if (!amount.isZero()) out[currency] = { main_balance: s(amount) };
  return out;
}

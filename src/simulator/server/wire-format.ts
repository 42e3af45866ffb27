import { Decimal } from '../../domain/decimal';
import { writeShape, type ShapeTable } from '../../exchange/wire/answer-shapes';
import type { BalanceEntry, SimDeal, SimKillSwitch, SimOco, SimOrder } from '../engine/types';

/**
 * Engine objects -> JSON answers, written through ONE dialect's field names (`shapes`, from
 * src/exchange/wire/): the simulated exchange answers only in the shapes of the dialect it speaks,
 * with the fields that dialect sends, in the order of the venue's examples. Here are the values in
 * canonical names; writeShape spells them. One function per shape, nothing else.
 *
 * `status` of a resting order is "OPEN" (as OCO legs show it), then "FILLED" / "CANCELED".
 */
type Json = Record<string, unknown>;

const s = (d: Decimal): string => d.toString();
const ZERO = new Decimal(0);

/** The activation fields of a stop order; none on a plain limit order or a take-profit leg. */
function activation(o: SimOrder) {
  if (o.activationPrice === undefined) return {};
  return { activated: o.activated ? 1 : 0, activationCondition: o.activationCondition, activationPrice: s(o.activationPrice) };
}

/** The fields every order-shaped answer starts with. */
function common(o: SimOrder) {
  return {
    orderId: o.id, clientOrderId: o.clientOrderId, market: o.market, side: o.side, type: o.type, timestamp: o.createdAt,
    dealMoney: s(o.dealMoney), dealStock: s(o.dealStock), amount: s(o.amount), left: s(o.left), dealFee: s(o.dealFee),
    price: s(o.price), postOnly: false, status: o.status, stp: 'no',
  };
}

/**
 * Stop-limit (and plain limit) order: create, cancel, active list. A resting order that traded part
 * of its amount says PARTIALLY_FILLED, as the venue's active-order statuses do.
 */
export function orderJson(o: SimOrder, shapes: ShapeTable): Json {
  const status = o.status === 'OPEN' && !o.dealStock.isZero() ? 'PARTIALLY_FILLED' : o.status;
  return writeShape('order', shapes.order, { ...common(o), status, ioc: false, rpi: false, ...activation(o) });
}

/** An OCO. The create answer carries `reduceOnly` and legs with fee ratios and `positionSide`; list and cancel legs carry `reduceOnly`. */
export function ocoJson(oco: SimOco, shapes: ShapeTable, created = false): Json {
  const leg = (o: SimOrder): Json => {
    const values = { ...common(o), takerFee: s(o.takerFee), makerFee: s(o.makerFee), mtime: o.updatedAt, ...activation(o) };
    return created
      ? writeShape('ocoLeg', shapes.ocoLeg, { ...values, positionSide: 'BOTH' })
      : writeShape('ocoListLeg', shapes.ocoListLeg, { ...values, reduceOnly: false });
  };
  return writeShape('oco', shapes.oco, {
    id: oco.id, reduceOnly: created ? false : undefined, stopLoss: leg(oco.stopLoss), takeProfit: leg(oco.takeProfit),
  });
}

/** Finished order row of trade-account/order/history. */
export function historyJson(o: SimOrder, shapes: ShapeTable): Json {
  return writeShape('historyOrder', shapes.historyOrder, {
    orderId: o.id, clientOrderId: o.clientOrderId, side: o.side, type: o.type, amount: s(o.amount), price: s(o.price),
    timestamp: o.createdAt, finishedAt: o.finishedAt ?? o.updatedAt, dealStock: s(o.dealStock), dealMoney: s(o.dealMoney),
    dealFee: s(o.dealFee), feeAsset: o.market.split('_')[1] ?? '', postOnly: false, ioc: false, status: o.status,
    positionSide: 'BOTH', rpi: false, reduceOnly: false,
    ...(o.activationPrice === undefined ? {} : {
      activationPrice: s(o.activationPrice),
      activationCondition: o.activationCondition === 'gte' ? '>=' : '<=',
      activated: o.activatedAt,
    }),
  });
}

/** Deal row of trade-account/executed-history. */
export function dealJson(d: SimDeal, shapes: ShapeTable): Json {
  return writeShape('deal', shapes.deal, {
    id: d.id, clientOrderId: d.clientOrderId, time: d.time, side: d.side, role: d.role, amount: s(d.amount),
    price: s(d.price), deal: s(d.deal), fee: s(d.fee), orderId: d.orderId, feeAsset: d.feeAsset,
  });
}

/** `types` is null when the timer was set without types: written as null, not left out. */
export function killSwitchJson(t: SimKillSwitch, shapes: ShapeTable): Json {
  return writeShape('killSwitchTimer', shapes.killSwitchTimer, {
    market: t.market, startTime: t.startTime, cancellationTime: t.cancellationTime, types: t.types,
  });
}

export function tradingBalanceJson(balances: ReadonlyMap<string, BalanceEntry>, shapes: ShapeTable, ticker?: string): Json {
  const out: Json = {};
  for (const [currency, entry] of balances) {
    if (ticker === undefined || ticker === currency) {
      out[currency] = writeShape('balanceEntry', shapes.balanceEntry, { available: s(entry.available), freeze: s(entry.freeze) });
    }
  }
  return out;
}

/**
 * What the collateral account holds per asset (`available + freeze`), the part below zero (a short's
 * stock) counting as borrowed, not as balance.
 */
function collateralHoldings(balances: ReadonlyMap<string, BalanceEntry>, ticker: string | undefined): [string, Decimal, BalanceEntry][] {
  const out: [string, Decimal, BalanceEntry][] = [];
  for (const [currency, entry] of balances) {
    if (ticker !== undefined && ticker !== currency) continue;
    const total = entry.available.plus(entry.freeze);
    if (ticker !== undefined || !total.isZero()) out.push([currency, total, entry]);
  }
  return out;
}

/**
 * collateral-account/balance: JSON numbers per asset, as documented (`{"BTC":1,"USDT":1000}`). Written
 * through a float, so exact up to 15 significant digits (at most 8 decimals are written); the daemon
 * reads the summary's decimal strings instead. Zero assets are omitted unless `ticker` names one.
 */
export function collateralBalanceJson(balances: ReadonlyMap<string, BalanceEntry>, ticker?: string): Json {
  const out: Json = {};
  for (const [currency, total] of collateralHoldings(balances, ticker)) {
    out[currency] = Number((total.isNegative() ? total.times(0) : total).toDecimalPlaces(8).toString());
  }
  return out;
}

/** One collateral-account asset: balance, borrowed (a short's stock), and what is free for new orders. */
export interface CollateralSummaryRow {
  readonly asset: string;
  readonly balance: Decimal;
  readonly borrow: Decimal;
  readonly availableWithoutBorrow: Decimal;
  readonly availableWithBorrow: Decimal;
}

/** The balance-summary rows (the HTTP answer writes them; the in-process transport hands them on). */
export function collateralSummaryRows(balances: ReadonlyMap<string, BalanceEntry>, ticker?: string): CollateralSummaryRow[] {
  return collateralHoldings(balances, ticker).map(([asset, total, entry]) => {
    const free = entry.available.isNegative() ? ZERO : entry.available;
    return {
      asset, balance: total.isNegative() ? ZERO : total, borrow: total.isNegative() ? total.negated() : ZERO,
      availableWithoutBorrow: free, availableWithBorrow: free,
    };
  });
}

/** collateral-account/balance-summary rows in the dialect's shape. */
export function collateralSummaryJson(balances: ReadonlyMap<string, BalanceEntry>, shapes: ShapeTable, ticker?: string): Json[] {
  return collateralSummaryRows(balances, ticker).map((row) => writeShape('collateralAsset', shapes.collateralAsset, {
    asset: row.asset, balance: s(row.balance), borrow: s(row.borrow),
    availableWithoutBorrow: s(row.availableWithoutBorrow), availableWithBorrow: s(row.availableWithBorrow),
  }));
}

/** Main balance: assets with a zero balance are omitted, as the spec says; a named ticker is always answered (the venue answers "0"). */
export function mainBalanceJson(balances: ReadonlyMap<string, Decimal>, shapes: ShapeTable, ticker?: string): Json {
  const out: Json = {};
  const entry = (amount: Decimal | undefined) => writeShape('mainBalanceEntry', shapes.mainBalanceEntry, { mainBalance: amount === undefined ? '0' : s(amount) });
  if (ticker !== undefined) {
    out[ticker] = entry(balances.get(ticker));
    return out;
  }
  for (const [currency, amount] of balances) if (!amount.isZero()) out[currency] = entry(amount);
  return out;
}

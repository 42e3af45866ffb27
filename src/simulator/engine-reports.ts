import { Decimal } from '../domain/decimal';
import type { Balances } from '../domain/market';
import type { HistoryOrderReport, OcoReport, OrderReport } from '../domain/order';
import type { CollateralAssetBalance } from '../exchange/exchange-client';
import type { BalanceEntry, SimOco, SimOrder } from './engine/types';
import { collateralSummaryRows } from './server/wire-format';

/**
 * Engine objects -> the domain's reports, for the in-process transport (in-process-exchange.ts).
 *
 * The HTTP simulator writes an engine order in the dialect's JSON (server/wire-format.ts) and the HTTP
 * client reads it back with zod; doing both for every call made a backtest about 1.6x as slow as its
 * own pipeline before the kernel was shared (bench/RESULTS.md, "One trading kernel"). These functions
 * produce what that round trip produces, field for field: the two-transport parity test and the
 * ExchangeClient contract run over both transports and compare the results word for word.
 */

const ZERO = new Decimal(0);

function activation(o: SimOrder): Pick<OrderReport, 'activationPrice' | 'activationCondition' | 'activated'> {
  return o.activationPrice === undefined
    ? { activationPrice: undefined, activationCondition: undefined, activated: undefined }
    : { activationPrice: o.activationPrice, activationCondition: o.activationCondition, activated: o.activated };
}

function report(o: SimOrder, status: string, left: Decimal): OrderReport {
  return {
    orderId: o.id, clientOrderId: o.clientOrderId === '' ? undefined : o.clientOrderId, market: o.market, side: o.side, type: o.type,
    timestamp: o.createdAt, amount: o.amount, left, dealStock: o.dealStock, dealMoney: o.dealMoney, dealFee: o.dealFee, price: o.price,
    ...activation(o), status,
  };
}

/** A stop-limit (or plain limit) order: a resting order that traded part of its amount says PARTIALLY_FILLED. */
export function orderReportOf(o: SimOrder): OrderReport {
  return report(o, o.status === 'OPEN' && !o.dealStock.isZero() ? 'PARTIALLY_FILLED' : o.status, o.left);
}

/** An OCO; its legs say their status as is (OPEN while resting). */
export function ocoReportOf(oco: SimOco): OcoReport {
  return { id: oco.id, stopLoss: report(oco.stopLoss, oco.stopLoss.status, oco.stopLoss.left), takeProfit: report(oco.takeProfit, oco.takeProfit.status, oco.takeProfit.left) };
}

/**
 * A finished order's history row: no `left` on the wire (what did not execute is amount - dealStock),
 * `activated` is the trigger's time (set: true), finished at its final update.
 */
export function historyReportOf(o: SimOrder): HistoryOrderReport {
  const left = Decimal.max(o.amount.minus(o.dealStock), ZERO);
  const base = report(o, o.status, left);
  return {
    ...base,
    activated: o.activationPrice === undefined || o.activatedAt === undefined ? undefined : o.activatedAt > 0,
    finishedAt: o.finishedAt ?? o.updatedAt,
  };
}

/** Trading balances (`ticker` answers that currency only). */
export function balancesOf(balances: ReadonlyMap<string, BalanceEntry>, ticker?: string): Balances {
  const out: Record<string, { available: Decimal; freeze: Decimal }> = {};
  for (const [currency, entry] of balances) {
    if (ticker === undefined || ticker === currency) out[currency] = { available: entry.available, freeze: entry.freeze };
  }
  return out;
}

/** The collateral account's summary by asset (the same rows the HTTP answer writes). */
export function collateralSummaryOf(balances: ReadonlyMap<string, BalanceEntry>, ticker?: string): Readonly<Record<string, CollateralAssetBalance>> {
  const out: Record<string, CollateralAssetBalance> = {};
  for (const row of collateralSummaryRows(balances, ticker)) {
    out[row.asset] = { balance: row.balance, borrow: row.borrow, availableWithoutBorrow: row.availableWithoutBorrow, availableWithBorrow: row.availableWithBorrow };
  }
  return out;
}

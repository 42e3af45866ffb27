import { z } from 'zod';
import { Decimal } from '../../domain/decimal';
import type { DealReport, HistoryOrderReport, KillSwitchTimer, OcoReport, OrderReport } from '../../domain/order';
import type { ShapeNames, ShapeTable } from './answer-shapes';
import { cappedArray, cappedByMarket, dec, MAX_ROWS, optionalClientOrderId, seconds, wireObject } from './response-fields';

/**
 * Order-shaped answers (order creation/cancel, active lists, OCO, history, deals, kill-switch), read
 * under one dialect's field names (`shapes`) into the domain types. Samples of both dialects are the
 * fixtures under test/fixtures/venue and test/fixtures/spec.
 */

/** "lte"/"gte" (create, OCO legs) or the history's operator text ("<=", ">="). */
const activationCondition = z
  .string()
  .optional()
  .transform((v) => {
    if (v === 'lte' || v === '<=') return 'lte' as const;
    if (v === 'gte' || v === '>=') return 'gte' as const;
    return undefined;
  });

/** 0/1 on stop orders and OCO legs; the history sends the trigger's Unix time (absent if never). */
const activated = z
  .union([z.number(), z.boolean()])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === true || (typeof v === 'number' && v > 0)));

const reportFields = {
  orderId: z.number().int(),
  clientOrderId: optionalClientOrderId,
  side: z.enum(['buy', 'sell']),
  type: z.string(),
  timestamp: seconds,
  amount: dec,
  dealStock: dec,
  dealMoney: dec,
  dealFee: dec,
  price: dec.optional(),
  activationPrice: dec.optional(),
  activationCondition,
  activated,
  status: z.string().optional(),
};

type WireReport = z.output<z.ZodObject<typeof reportFields>> & { readonly left: Decimal; readonly market?: string | undefined };

function toOrderReport(o: WireReport, market?: string): OrderReport {
  return {
    orderId: o.orderId,
    clientOrderId: o.clientOrderId,
    market: o.market ?? market ?? '',
    side: o.side,
    type: o.type,
    timestamp: o.timestamp,
    amount: o.amount,
    left: o.left,
    dealStock: o.dealStock,
    dealMoney: o.dealMoney,
    dealFee: o.dealFee,
    price: o.price,
    activationPrice: o.activationPrice,
    activationCondition: o.activationCondition,
    activated: o.activated,
    status: o.status,
  };
}

/** An order or an OCO leg (all three shapes carry the report's fields). */
function orderReport(names: ShapeNames<'order'> | ShapeNames<'ocoLeg'> | ShapeNames<'ocoListLeg'>): z.ZodType<OrderReport> {
  return wireObject(names, { ...reportFields, market: z.string().optional(), left: dec }).transform((o) => toOrderReport(o));
}

/** An OCO with its legs in the create answer's shape (`ocoLeg`) or the list / cancel shape (`ocoListLeg`). */
function ocoReport(shapes: ShapeTable, legs: 'ocoLeg' | 'ocoListLeg'): z.ZodType<OcoReport> {
  const leg = orderReport(shapes[legs]);
  return wireObject(shapes.oco, { id: z.number().int(), stopLoss: leg, takeProfit: leg })
    .transform((o): OcoReport => ({ id: o.id, stopLoss: o.stopLoss, takeProfit: o.takeProfit }));
}

/**
 * History rows: keyed by market. The venue's rows carry no `left`; what was not executed is
 * `amount - dealStock` (an order partly filled, then cancelled, has a rest: it did not fill).
 */
function historyList(names: ShapeNames<'historyOrder'>): z.ZodType<HistoryOrderReport[]> {
  const row = wireObject(names, { ...reportFields, left: dec.optional(), finishedAt: seconds.optional() });
  return cappedByMarket(row, MAX_ROWS.history).transform((byMarket) =>
    Object.entries(byMarket).flatMap(([market, rows]) => rows.map((r): HistoryOrderReport => {
      const left = r.left ?? Decimal.max(r.amount.minus(r.dealStock), 0);
      return { ...toOrderReport({ ...r, left }, market), finishedAt: r.finishedAt };
    })),
  );
}

/** Deals: a flat array when asked for one market, keyed by market otherwise (as documented). */
function dealList(names: ShapeNames<'deal'>): z.ZodType<DealReport[]> {
  const row = wireObject(names, {
    id: z.number().int(), orderId: z.number().int(), clientOrderId: optionalClientOrderId, side: z.enum(['buy', 'sell']),
    time: seconds, amount: dec, price: dec, deal: dec, fee: dec, role: z.number().int(),
  });
  type Row = z.output<typeof row>;
  const toDeal = (r: Row, market: string): DealReport => ({
    id: r.id, orderId: r.orderId, clientOrderId: r.clientOrderId, market, side: r.side, time: r.time,
    amount: r.amount, price: r.price, deal: r.deal, fee: r.fee, role: r.role === 1 ? 'maker' : 'taker',
  });
  return z.union([cappedArray(row, MAX_ROWS.history), cappedByMarket(row, MAX_ROWS.history)]).transform((v) =>
    Array.isArray(v) ? v.map((r) => toDeal(r, '')) : Object.entries(v).flatMap(([market, rows]) => rows.map((r) => toDeal(r, market))),
  );
}

function timer(names: ShapeNames<'killSwitchTimer'>): z.ZodType<KillSwitchTimer> {
  return wireObject(names, {
    market: z.string(), startTime: seconds, cancellationTime: seconds,
    types: z.array(z.string()).nullish().transform((t) => t ?? null),
  }).transform((t): KillSwitchTimer => ({ market: t.market, startTime: t.startTime, cancellationTime: t.cancellationTime, types: t.types }));
}

/** The order-shaped answer schemas of one dialect. */
export function orderAnswers(shapes: ShapeTable) {
  const order = orderReport(shapes.order);
  const listedOco = ocoReport(shapes, 'ocoListLeg');
  const killSwitchTimer = timer(shapes.killSwitchTimer);
  return {
    order,
    orderList: cappedArray(order, MAX_ROWS.orders),
    createdOco: ocoReport(shapes, 'ocoLeg'),
    canceledOco: listedOco,
    ocoList: cappedArray(listedOco, MAX_ROWS.orders),
    historyList: historyList(shapes.historyOrder),
    dealList: dealList(shapes.deal),
    /** Set/refresh answers the timer; delete answers `[]`. */
    killSwitchResult: z.union([killSwitchTimer, z.array(z.unknown()).length(0).transform(() => null)]),
    killSwitchStatus: z.array(killSwitchTimer),
  };
}

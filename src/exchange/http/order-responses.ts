import { z } from 'zod';
import { Decimal } from '../../domain/decimal';
import type { DealReport, HistoryOrderReport, KillSwitchTimer, OcoReport, OrderReport } from '../../domain/order';
import { dec, optionalClientOrderId, seconds, withAliases } from './response-fields';

/**
 * Order-shaped answers: order creation/cancel, active lists, OCO, history, deals, kill-switch.
 * Canonical names are the spec's snake_case; the documentation's camelCase is accepted through
 * `withAliases`, in this one table.
 */
const ORDER_ALIASES = {
  order_id: ['orderId', 'id'],
  client_order_id: ['clientOrderId'],
  deal_stock: ['dealStock'],
  deal_money: ['dealMoney'],
  deal_fee: ['dealFee'],
  activation_price: ['activationPrice'],
  activation_condition: ['activationCondition'],
  timestamp: ['ctime'],
} as const;

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

// Sample (spec, POST /api/v4/order/stop_limit):
// {"order_id":3134995325,"client_order_id":"","market":"BTC_USDT","side":"buy","type":"stop limit",
//  "timestamp":1595792396.165973,"deal_money":"0","deal_stock":"0","amount":"0.001","left":"0.001",
//  "deal_fee":"0","price":"40000","postOnly":false,"ioc":false,"status":"FILLED","stp":"no",
//  "activated":0,"activationCondition":"gte","activation_price":"40000"}
const orderFields = {
  order_id: z.number().int(),
  client_order_id: optionalClientOrderId,
  market: z.string().optional(),
  side: z.enum(['buy', 'sell']),
  type: z.string(),
  timestamp: seconds,
  amount: dec,
  left: dec,
  deal_stock: dec,
  deal_money: dec,
  deal_fee: dec,
  price: dec.optional(),
  activation_price: dec.optional(),
  activation_condition: activationCondition,
  activated,
  status: z.string().optional(),
  ftime: seconds.optional(),
};
const orderObject = z.object(orderFields);
export const orderSchema = withAliases(ORDER_ALIASES, orderObject);

type WireOrder = z.output<typeof orderObject>;

function toOrderReport(o: WireOrder, market?: string): OrderReport {
  return {
    orderId: o.order_id,
    clientOrderId: o.client_order_id,
    market: o.market ?? market ?? '',
    side: o.side,
    type: o.type,
    timestamp: o.timestamp,
    amount: o.amount,
    left: o.left,
    dealStock: o.deal_stock,
    dealMoney: o.deal_money,
    dealFee: o.deal_fee,
    price: o.price,
    activationPrice: o.activation_price,
    activationCondition: o.activation_condition,
    activated: o.activated,
    status: o.status,
  };
}

export const orderReport = orderSchema.transform((o) => toOrderReport(o));
export const orderList = z.array(orderReport);

// Sample (spec OCO list item; create and cancel answer the same object, plus "reduceOnly"):
// {"id":117703764513,"stop_loss":{"order_id":45,"client_order_id":"","market":"BTC_USDT","side":"buy",
//  "type":"margin stop limit","timestamp":1695792396.1,"deal_money":"0","deal_stock":"0","amount":"0.001",
//  "takerFee":"0.001","makerFee":"0.001","left":"0.001","deal_fee":"0","post_only":false,"mtime":1695792396.1,
//  "price":"42000","activation_price":"41000","activation_condition":"gte","activated":0,"status":"OPEN","stp":"no"},
//  "take_profit":{... same without activation fields, "type":"margin limit","price":"40000"}}
export const ocoReport = withAliases(
  { stop_loss: ['stopLoss'], take_profit: ['takeProfit'] },
  z.object({ id: z.number().int(), stop_loss: orderSchema, take_profit: orderSchema }),
).transform((o): OcoReport => ({ id: o.id, stopLoss: toOrderReport(o.stop_loss), takeProfit: toOrderReport(o.take_profit) }));
export const ocoList = z.array(ocoReport);

/** The venue answers keyed by market; a flat array (rows carrying `market`) is accepted as well. */
function byMarket<T extends z.ZodType>(row: T) {
  return z.union([z.record(z.string(), z.array(row)), z.array(row)]).transform((v) =>
    Array.isArray(v) ? v.map((r) => ({ market: undefined, row: r as z.output<T> })) :
      Object.entries(v).flatMap(([market, rows]) => rows.map((r) => ({ market, row: r as z.output<T> }))),
  );
}

// Sample (docs, POST /api/v4/trade-account/order/history):
// {"BTC_USDT":[{"id":4986126152,"clientOrderId":"customId11","side":"sell","type":"limit","amount":"0.0009",
//  "price":"40000","ctime":1597486960.311311,"ftime":1597486960.311332,"dealStock":"0.0009",
//  "dealMoney":"41.258268","dealFee":"0.041258268","feeAsset":"USDT","postOnly":false,"ioc":false,
//  "status":"CANCELED","positionSide":"BOTH","rpi":false,"reduceOnly":false}]}
// History rows carry no `left`: a finished order has nothing left, so it defaults to "0".
const historyRow = withAliases(ORDER_ALIASES, orderObject.extend({ left: dec.default(() => new Decimal(0)) }));
export const historyList = byMarket(historyRow).transform((rows): HistoryOrderReport[] =>
  rows.map(({ market, row }) => ({ ...toOrderReport(row as WireOrder, market), finishedAt: (row as WireOrder).ftime })),
);

// Sample (docs, POST /api/v4/trade-account/executed-history with market):
// [{"id":1343815269,"clientOrderId":"","time":1641051917.532965,"side":"sell","role":2,"amount":"9.986",
//  "price":"0.9995","deal":"9.981007","fee":"0.009981007","orderId":58166729555,"feeAsset":"USDT"}]
const dealRow = withAliases(
  { client_order_id: ['clientOrderId'], order_id: ['orderId', 'dealOrderId'] },
  z.object({
    id: z.number().int(),
    order_id: z.number().int(),
    client_order_id: optionalClientOrderId,
    market: z.string().optional(),
    side: z.enum(['buy', 'sell']),
    time: seconds,
    amount: dec,
    price: dec,
    deal: dec,
    fee: dec,
    role: z.number().int(),
  }),
);
export const dealList = byMarket(dealRow).transform((rows): DealReport[] =>
  rows.map(({ market, row }) => ({
    id: row.id,
    orderId: row.order_id,
    clientOrderId: row.client_order_id,
    market: row.market ?? market ?? '',
    side: row.side,
    time: row.time,
    amount: row.amount,
    price: row.price,
    deal: row.deal,
    fee: row.fee,
    role: row.role === 1 ? 'maker' : 'taker',
  })),
);

// Sample (docs, POST /api/v4/order/kill-switch):
// {"market":"BTC_USDT","startTime":1686127243,"cancellationTime":1686127343,"types":["spot","margin"]}
const timerObject = withAliases(
  { startTime: ['start_time'], cancellationTime: ['cancellation_time'] },
  z.object({
    market: z.string(),
    startTime: seconds,
    cancellationTime: seconds,
    types: z.array(z.string()).nullish().transform((t) => t ?? null),
  }),
).transform((t): KillSwitchTimer => t);
/** Set/refresh answers the timer; delete answers `[]`. */
export const killSwitchResult = z.union([timerObject, z.array(z.unknown()).length(0).transform(() => null)]);
export const killSwitchStatus = z.array(timerObject);

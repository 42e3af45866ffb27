import { z } from 'zod';
import type { Candle } from '../../domain/candle';
import type { Balances, MarketInfo } from '../../domain/market';
import type { CodesPage, MiningAccountsPage } from '../exchange-client';
import type { EndpointId } from './endpoints';
import {
  dealList, historyList, killSwitchResult, killSwitchStatus, ocoList, ocoReport, orderList, orderReport,
} from './order-responses';
import { dec, intLike, optionalClientOrderId, percentAsRatio, withAliases } from './response-fields';

/**
 * zod schemas of every answer, mapped into the domain types. Decimals are parsed with parseDecimal
 * (never floats); both field spellings are accepted where the sources disagree. Order-shaped
 * answers live in order-responses.ts. RESPONSES maps each endpoint id to its schema.
 */

// Sample: ["pong"]
export const pingResult = z.array(z.string()).transform((a) => a.includes('pong'));

// Sample: {"time":1631451591} (docs: seconds) or {"time":1635467280514} (ccxt: ms).
export const timeResult = z.object({ time: z.number().nonnegative() })
  .transform(({ time }) => (time < 1e12 ? Math.round(time * 1000) : time));

// Sample (wire row order is time, open, CLOSE, HIGH, LOW, volume stock, volume money):
// {"success":true,"message":null,"result":[[1710324000,"73306.55","73260.84","73392.67","73121.22","197.740208","14485050.86832617"]]}
const klineRow = z.tuple([z.number().int().nonnegative(), dec, dec, dec, dec, dec, dec]).transform(
  ([time, open, close, high, low, volume, volumeMoney]): Candle => ({ time, open, high, low, close, volume, volumeMoney }),
);
export const klineResult = z
  .object({ success: z.literal(true), message: z.string().nullish(), result: z.array(klineRow) })
  .transform((r) => r.result);

// Sample (docs, GET /api/v4/public/markets):
// [{"name":"SON_USD","stock":"SON","money":"USD","stockPrec":"3","moneyPrec":"2","feePrec":"4","makerFee":"0.1",
//   "takerFee":"0.1","minAmount":"0.001","minTotal":"0.001","maxTotal":"10000000000","tradesEnabled":true,
//   "isCollateral":true,"type":"spot"}]
const marketRow = withAliases(
  { stockPrec: ['stock_prec'], moneyPrec: ['money_prec'], feePrec: ['fee_prec'], makerFee: ['maker_fee'],
    takerFee: ['taker_fee'], minAmount: ['min_amount'], minTotal: ['min_total'], maxTotal: ['max_total'],
    tradesEnabled: ['trades_enabled'], isCollateral: ['is_collateral'] },
  z.object({
    name: z.string(), stock: z.string(), money: z.string(),
    stockPrec: intLike, moneyPrec: intLike, feePrec: intLike,
    makerFee: percentAsRatio, takerFee: percentAsRatio,
    minAmount: dec, minTotal: dec, maxTotal: dec,
    tradesEnabled: z.boolean(), isCollateral: z.boolean().default(false), type: z.string().default('spot'),
  }),
).transform((m): MarketInfo => m);
export const marketsResult = z.array(marketRow);

// Sample (spec, POST /api/v4/trade-account/balance): {"BTC":{"available":"0.123","freeze":"0"}}
export const tradeBalanceResult = z
  .record(z.string(), z.object({ available: dec, freeze: dec }))
  .transform((r): Balances => r);

// Sample (spec, POST /api/v4/main-account/balance): {"BTC":{"main_balance":"0.0001"}}
export const mainBalanceResult = z
  .record(z.string(), withAliases({ main_balance: ['mainBalance'] }, z.object({ main_balance: dec })))
  .transform((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.main_balance])));

// Sample (spec, POST /api/v4/main-account/codes/my):
// {"total":1,"data":[{"amount":"100","code":"<CODE>","date":1594297865,"status":"Activated","ticker":"USDT",
//  "external_id":"8b2f..."}],"limit":30,"offset":0}
const codeRow = withAliases(
  { external_id: ['externalId'] },
  z.object({ amount: dec, code: z.string(), date: z.number().int(), status: z.string(), ticker: z.string(), external_id: optionalClientOrderId }),
);
export const codesResult = z
  .object({ total: z.number().int(), data: z.array(codeRow), limit: z.number().int(), offset: z.number().int() })
  .transform((r): CodesPage => ({
    total: r.total, limit: r.limit, offset: r.offset,
    data: r.data.map((c) => ({ amount: c.amount, code: c.code, date: c.date, status: c.status, ticker: c.ticker, externalId: c.external_id ?? '' })),
  }));

// Sample (spec, POST /api/v4/mining/accounts): {"data":[{"name":"main","createdAt":1601047200}],"limit":100,"offset":0}
export const miningAccountsResult = z
  .object({
    data: z.array(withAliases({ createdAt: ['created_at'] }, z.object({ name: z.string(), createdAt: z.number().int() }))),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .transform((r): MiningAccountsPage => r);

// Sample (spec, POST /api/v4/jwt): {"data":{"token":"<JWT>","expires_at":1700000000}}
export const jwtResult = z
  .object({ data: withAliases({ expires_at: ['expiresAt'] }, z.object({ token: z.string(), expires_at: z.number().int() })) })
  .transform((r) => ({ token: r.data.token, expiresAt: r.data.expires_at }));

// Sample (spec, POST /api/v4/profile/websocket_token): {"websocket_token":"<WEBSOCKET_TOKEN>"}
export const websocketTokenResult = withAliases(
  { websocket_token: ['websocketToken'] },
  z.object({ websocket_token: z.string() }),
).transform((r) => r.websocket_token);

/** Each endpoint's answer schema (the client parses every success body through it). */
export const RESPONSES = {
  kline: klineResult,
  ping: pingResult,
  time: timeResult,
  markets: marketsResult,
  tradeBalance: tradeBalanceResult,
  mainBalance: mainBalanceResult,
  codes: codesResult,
  miningAccounts: miningAccountsResult,
  jwt: jwtResult,
  websocketToken: websocketTokenResult,
  activeOrders: orderList,
  ocoList,
  ocoListAlt: ocoList,
  orderHistory: historyList,
  executedDeals: dealList,
  killSwitchStatus,
  stopLimit: orderReport,
  collateralOco: ocoReport,
  cancelOrder: orderReport,
  cancelOco: ocoReport,
  killSwitch: killSwitchResult,
} as const satisfies Record<EndpointId, z.ZodType>;

export type ResponseOf<E extends EndpointId> = z.output<(typeof RESPONSES)[E]>;

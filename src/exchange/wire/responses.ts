import { z } from 'zod';
import type { Candle } from '../../domain/candle';
import type { Balances, MarketInfo } from '../../domain/market';
import type { Decimal } from '../../domain/decimal';
import type { CodesPage, CollateralAssetBalance, MiningAccountsPage } from '../exchange-client';
import { SHARED_SHAPES, type ShapeTable } from './answer-shapes';
import { orderAnswers } from './order-responses';
import { cappedArray, dec, intLike, MAX_ROWS, optionalClientOrderId, percentAsRatio, wireObject } from './response-fields';

/**
 * zod schemas of every answer, by name (the endpoint table, endpoints.ts, names each endpoint's),
 * read under one dialect's field names (answer-shapes.ts) and mapped into the domain types. Decimals are parsed with parseDecimal (never floats). Only the dialect's own
 * spellings are read: an answer in another dialect's shape is a BadResponseError, never half
 * understood. Order-shaped answers live in order-responses.ts.
 */

// Sample: ["pong"]
export const pingResult = z.array(z.string()).transform((a) => a.includes('pong'));

// Sample: {"time":1631451591} (docs: seconds) or {"time":1635467280514} (ccxt: ms).
export const timeResult = wireObject(SHARED_SHAPES.time, { time: z.number().nonnegative() })
  .transform(({ time }) => (time < 1e12 ? Math.round(time * 1000) : time));

function answerSchemas(shapes: ShapeTable) {
  // Sample (wire row order is time, open, CLOSE, HIGH, LOW, volume stock, volume money):
  // {"success":true,"message":null,"result":[[1710324000,"73306.55","73260.84","73392.67","73121.22","197.740208","14485050.86832617"]]}
  const klineRow = z.tuple([z.number().int().nonnegative(), dec, dec, dec, dec, dec, dec]).transform(
    ([time, open, close, high, low, volume, volumeMoney]): Candle => ({ time, open, high, low, close, volume, volumeMoney }),
  );
  const kline = wireObject(shapes.v1Envelope, { success: z.literal(true), message: z.string().nullish(), result: cappedArray(klineRow, MAX_ROWS.kline) })
    .transform((r) => r.result);

  // Sample (docs, GET /api/v4/public/markets):
  // [{"name":"SON_USD","stock":"SON","money":"USD","stockPrec":"3","moneyPrec":"2","feePrec":"4","makerFee":"0.1",
  //   "takerFee":"0.1","minAmount":"0.001","minTotal":"0.001","maxTotal":"10000000000","tradesEnabled":true,
  //   "isCollateral":true,"type":"spot"}]
  const marketRow = wireObject(shapes.market, {
    name: z.string(), stock: z.string(), money: z.string(),
    stockPrec: intLike, moneyPrec: intLike, feePrec: intLike,
    makerFee: percentAsRatio, takerFee: percentAsRatio,
    minAmount: dec, minTotal: dec, maxTotal: dec,
    tradesEnabled: z.boolean(), isCollateral: z.boolean().default(false), type: z.string().default('spot'),
  }).transform((m): MarketInfo => m);

  // Sample: {"BTC":{"available":"0.123","freeze":"0"}}
  const tradeBalance = z.record(z.string(), wireObject(shapes.balanceEntry, { available: dec, freeze: dec }))
    .transform((r): Balances => r);

  // Sample (docs, POST /api/v4/collateral-account/balance): {"BTC":1,"USDT":1000,"ETH":5.5}: JSON numbers.
  const collateralBalance = z.record(z.string(), dec).transform((r): Readonly<Record<string, Decimal>> => r);

  // Sample (docs, POST /api/v4/collateral-account/balance-summary):
  // [{"asset":"BTC","balance":"0.5","borrow":"0","availableWithoutBorrow":"0.5","availableWithBorrow":"123.456"}]
  const collateralBalanceSummary = z.array(wireObject(shapes.collateralAsset, {
    asset: z.string(), balance: dec, borrow: dec, availableWithoutBorrow: dec, availableWithBorrow: dec,
  })).transform((rows) => Object.fromEntries(rows.map(({ asset, ...rest }): [string, CollateralAssetBalance] => [asset, rest])));

  // Sample (docs, POST /api/v4/main-account/transfer, HTTP 201): []
  const transfer = z.array(z.unknown()).length(0).transform(() => undefined);

  // Sample: {"BTC":{"main_balance":"0.0001"}}
  const mainBalance = z.record(z.string(), wireObject(shapes.mainBalanceEntry, { mainBalance: dec }))
    .transform((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.mainBalance])));

  // Sample: {"total":1,"data":[{"amount":"100","code":"<CODE>","date":1594297865,"status":"Activated","ticker":"USDT",
  //  "external_id":"8b2f..."}],"limit":30,"offset":0}
  const codeRow = wireObject(shapes.code, {
    amount: dec, code: z.string(), date: z.number().int(), status: z.string(), ticker: z.string(), externalId: optionalClientOrderId,
  });
  const codes = wireObject(shapes.codesPage, { total: z.number().int(), data: z.array(codeRow), limit: z.number().int(), offset: z.number().int() })
    .transform((r): CodesPage => ({
      total: r.total, limit: r.limit, offset: r.offset,
      data: r.data.map((c) => ({ amount: c.amount, code: c.code, date: c.date, status: c.status, ticker: c.ticker, externalId: c.externalId ?? '' })),
    }));

  // Sample: {"data":[{"name":"main","createdAt":1601047200}],"limit":100,"offset":0}
  const miningAccounts = wireObject(shapes.miningPage, {
    data: z.array(wireObject(shapes.miningAccount, { name: z.string(), createdAt: z.number().int() })),
    limit: z.number().int(), offset: z.number().int(),
  }).transform((r): MiningAccountsPage => ({ data: r.data.map((a) => ({ name: a.name, createdAt: a.createdAt })), limit: r.limit, offset: r.offset }));

  // Sample: {"data":{"token":"<JWT>","expires_at":1700000000}}
  const jwt = wireObject(shapes.jwt, { data: wireObject(shapes.jwtData, { token: z.string(), expiresAt: z.number().int() }) })
    .transform((r) => ({ token: r.data.token, expiresAt: r.data.expiresAt }));

  // Sample: {"websocket_token":"<WEBSOCKET_TOKEN>"}
  const websocketToken = wireObject(shapes.websocketToken, { websocketToken: z.string() }).transform((r) => r.websocketToken);

  return {
    kline,
    ping: pingResult,
    time: timeResult,
    markets: cappedArray(marketRow, MAX_ROWS.markets),
    tradeBalance,
    mainBalance,
    collateralBalance,
    collateralBalanceSummary,
    transfer,
    codes,
    miningAccounts,
    jwt,
    websocketToken,
    ...orderAnswers(shapes),
  };
}

export type AnswerSchemas = ReturnType<typeof answerSchemas>;
export type AnswerName = keyof AnswerSchemas;

const BY_SHAPES = new WeakMap<ShapeTable, AnswerSchemas>();

/** Every answer schema under one dialect's `shapes` (built once per dialect, on first use). */
export function answersOf(shapes: ShapeTable): AnswerSchemas {
  let schemas = BY_SHAPES.get(shapes);
  if (schemas === undefined) {
    schemas = answerSchemas(shapes);
    BY_SHAPES.set(shapes, schemas);
  }
  return schemas;
}

import { createHash } from 'node:crypto';
import { Decimal } from '../../domain/decimal';
import type { EndpointId } from '../../exchange/wire/endpoints';
import { writeShape, type ShapeTable } from '../../exchange/wire/answer-shapes';
import type { SimEngine } from '../engine/sim-engine';
import type { PlaceOcoInput, PlaceStopLimitInput, SimDeal, SimOco, SimOrder, SimOrderRef, TransferInput } from '../engine/types';
import {
  collateralBalanceJson, collateralSummaryJson, dealJson, historyJson, killSwitchJson, mainBalanceJson, ocoJson, orderJson,
  tradingBalanceJson,
} from './wire-format';

/**
 * One function per private endpoint: canonical parameters in (the endpoint table's names, already
 * checked), JSON answer out in the dialect's `shapes`. Engine rejections are thrown and turned into
 * the private error shape by the server.
 */
export interface PrivateContext {
  readonly engine: SimEngine;
  readonly apiKey: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** Market clock, Unix seconds. */
  readonly now: number;
  readonly shapes: ShapeTable;
  /** Issues a token the WebSocket `authorize` accepts (ws/ws-tokens.ts). */
  readonly issueWebsocketToken: (apiKey: string) => string;
}

/** A non-200 answer a handler returns instead of throwing (e.g. code 30 with its own field errors). */
export class PrivateAnswer {
  constructor(readonly status: number, readonly body: unknown) {}
}
type Handler = (ctx: PrivateContext) => unknown;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
// A Decimal (the in-process transport's request) is taken as is: immutable, and parsing its own
// text again gives the same value. Text (the HTTP server's request) is parsed.
const dec = (v: unknown): Decimal => (v instanceof Decimal ? v : new Decimal(String(v)));
const side = (v: unknown): 'buy' | 'sell' => (v === 'buy' ? 'buy' : 'sell');
const page = <T>(rows: readonly T[], p: Readonly<Record<string, unknown>>, defaultLimit: number): T[] => {
  const offset = num(p['offset']) ?? 0;
  return rows.slice(offset, offset + (num(p['limit']) ?? defaultLimit));
};

export function orderRef(p: Readonly<Record<string, unknown>>): SimOrderRef {
  const orderId = num(p['orderId']);
  return orderId !== undefined ? { orderId } : { clientOrderId: str(p['clientOrderId']) ?? '' };
}

function inDateRange(time: number, p: Readonly<Record<string, unknown>>): boolean {
  const start = num(p['startDate']);
  const end = num(p['endDate']);
  return (start === undefined || time >= start) && (end === undefined || time <= end);
}

function groupByMarket<T extends { market: string }>(rows: readonly T[], toJson: (row: T) => unknown): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const row of rows) (out[row.market] ??= []).push(toJson(row));
  return out;
}

const CREATED_AT = 1_600_000_000;

/*
 * What an endpoint asks the engine, apart from how the answer is written: the HTTP handlers below
 * write it as the dialect's JSON, the in-process transport (../in-process-exchange.ts) hands the
 * engine's objects on as reports.
 */
type Params = Readonly<Record<string, unknown>>;

export const stopLimitInput = (p: Params): PlaceStopLimitInput => ({
  market: String(p['market']), side: side(p['side']),
  amount: dec(p['amount']), price: dec(p['price']), activationPrice: dec(p['activationPrice']), clientOrderId: str(p['clientOrderId']),
});

export const ocoInput = (p: Params): PlaceOcoInput => ({
  market: String(p['market']), side: side(p['side']), amount: dec(p['amount']), price: dec(p['price']),
  activationPrice: dec(p['activationPrice']), stopLimitPrice: dec(p['stopLimitPrice']), clientOrderId: str(p['clientOrderId']),
});

export function activeOrderRows(engine: SimEngine, apiKey: string, params: Params): SimOrder[] {
  const filter: { market?: string; orderId?: number; clientOrderId?: string } = {};
  const market = str(params['market']);
  const orderId = num(params['orderId']);
  const clientOrderId = str(params['clientOrderId']);
  if (market !== undefined) filter.market = market;
  if (orderId !== undefined) filter.orderId = orderId;
  if (clientOrderId !== undefined) filter.clientOrderId = clientOrderId;
  return page(engine.activeOrders(apiKey, filter), params, 50);
}

export function ocoRows(engine: SimEngine, apiKey: string, params: Params): SimOco[] {
  return page(engine.activeOcos(apiKey, str(params['market'])), params, 50);
}

/** Finished orders matching the query, one page; a client order id nothing carries is the venue's 422. */
export function historyRows(engine: SimEngine, apiKey: string, params: Params): SimOrder[] | PrivateAnswer {
  const market = str(params['market']);
  const orderId = num(params['orderId']);
  const clientOrderId = str(params['clientOrderId']);
  const status = str(params['status']) ?? 'ALL';
  const keep = (o: SimOrder): boolean => (market === undefined || o.market === market)
    && (orderId === undefined || o.id === orderId)
    && (clientOrderId === undefined || o.clientOrderId === clientOrderId)
    && historyStatusMatches(o, status)
    && inDateRange(o.finishedAt ?? o.updatedAt, params);
  let rows: SimOrder[];
  if (orderId === undefined) rows = engine.orderHistoryWhere(apiKey, keep);
  else {
    const found = engine.finishedOrder(apiKey, orderId);
    rows = found !== undefined && keep(found) ? [found] : [];
  }
  if (clientOrderId !== undefined && rows.length === 0) {
    return new PrivateAnswer(422, { code: 30, message: 'Validation failed', errors: { orderHistory: ['OrderHistory was not found.'] } });
  }
  return page(rows, params, 50);
}

/** main-account/transfer's `method` as from/to (documentation: deposit main->spot, withdraw spot->main, collateral-* main<->collateral). */
const TRANSFER_METHODS: Readonly<Record<string, { from: string; to: string }>> = {
  deposit: { from: 'main', to: 'spot' },
  withdraw: { from: 'spot', to: 'main' },
  'collateral-deposit': { from: 'main', to: 'collateral' },
  'collateral-withdraw': { from: 'collateral', to: 'main' },
};

export const PRIVATE_HANDLERS: Readonly<Record<Exclude<EndpointId, 'kline' | 'ping' | 'time' | 'markets'> | 'limitOrder', Handler>> = {
  tradeBalance: ({ engine, apiKey, params, shapes }) => tradingBalanceJson(engine.tradingBalances(apiKey), shapes, str(params['ticker'])),
  mainBalance: ({ engine, apiKey, params, shapes }) => mainBalanceJson(engine.mainBalances(apiKey), shapes, str(params['ticker'])),
  collateralBalance: ({ engine, apiKey, params }) => collateralBalanceJson(engine.collateralBalances(apiKey), str(params['ticker'])),
  collateralBalanceSummary: ({ engine, apiKey, params, shapes }) => collateralSummaryJson(engine.collateralBalances(apiKey), shapes, str(params['ticker'])),
  // HTTP 201 with `[]`, as documented. `method` is the older form of from/to.
  transfer: ({ engine, apiKey, params }) => {
    const route = TRANSFER_METHODS[str(params['method']) ?? ''] ?? { from: params['from'], to: params['to'] };
    engine.transfer(apiKey, { ticker: String(params['ticker']), amount: dec(params['amount']), from: route.from, to: route.to } as TransferInput);
    return new PrivateAnswer(201, []);
  },

  codes: ({ params, shapes }) => {
    const all = [writeShape('code', shapes.code, { amount: '100', code: 'SIMCODE-0000-0000-0001', date: CREATED_AT, status: 'Activated', ticker: 'USDT', externalId: 'sim-1' })];
    return writeShape('codesPage', shapes.codesPage, { total: all.length, data: page(all, params, 30), limit: num(params['limit']) ?? 30, offset: num(params['offset']) ?? 0 });
  },
  miningAccounts: ({ params, shapes }) => {
    const name = str(params['name']);
    const all = [{ name: 'sim-main', createdAt: CREATED_AT }].filter((x) => name === undefined || x.name === name);
    return writeShape('miningPage', shapes.miningPage, { data: all.map((x) => writeShape('miningAccount', shapes.miningAccount, x)), limit: 100, offset: 0 });
  },
  jwt: ({ apiKey, now, shapes }) => {
    const expiresAt = Math.floor(now) + 3600;
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: keyTag(apiKey), exp: expiresAt })}`;
    const token = `${body}.${createHash('sha256').update(body).digest('base64url')}`;
    return writeShape('jwt', shapes.jwt, { data: writeShape('jwtData', shapes.jwtData, { token, expiresAt }) });
  },
  websocketToken: ({ apiKey, shapes, issueWebsocketToken }) => writeShape('websocketToken', shapes.websocketToken, { websocketToken: issueWebsocketToken(apiKey) }),

  activeOrders: ({ engine, apiKey, params, shapes }) => activeOrderRows(engine, apiKey, params).map((o) => orderJson(o, shapes)),
  ocoList: ({ engine, apiKey, params, shapes }) => ocoRows(engine, apiKey, params).map((o) => ocoJson(o, shapes)),
  orderHistory: ({ engine, apiKey, params, shapes }) => {
    const rows = historyRows(engine, apiKey, params);
    return rows instanceof PrivateAnswer ? rows : groupByMarket(rows, (o) => historyJson(o, shapes));
  },
  executedDeals: ({ engine, apiKey, params, shapes }) => {
    const market = str(params['market']);
    const clientOrderId = str(params['clientOrderId']);
    const rows = engine.deals(apiKey).filter((d: SimDeal) => (market === undefined || d.market === market)
      && (clientOrderId === undefined || d.clientOrderId === clientOrderId) && inDateRange(d.time, params));
    const paged = page(rows, params, 50);
    return market !== undefined ? paged.map((d) => dealJson(d, shapes)) : groupByMarket(paged, (d) => dealJson(d, shapes));
  },
  killSwitchStatus: ({ engine, apiKey, params, shapes }) => engine.killSwitchStatus(apiKey, str(params['market'])).map((t) => killSwitchJson(t, shapes)),

  stopLimit: ({ engine, apiKey, params, shapes }) => orderJson(engine.placeStopLimit(apiKey, stopLimitInput(params)), shapes),
  collateralOco: ({ engine, apiKey, params, shapes }) => ocoJson(engine.placeOco(apiKey, ocoInput(params)), shapes, true),
  cancelOrder: ({ engine, apiKey, params, shapes }) => orderJson(engine.cancelOrder(apiKey, String(params['market']), orderRef(params)), shapes),
  cancelOco: ({ engine, apiKey, params, shapes }) => ocoJson(engine.cancelOco(apiKey, String(params['market']), orderRef(params)), shapes),
  killSwitch: ({ engine, apiKey, params, shapes }) => {
    const timeout = params['timeout'];
    const types = Array.isArray(params['types']) ? (params['types'] as string[]) : null;
    const timer = engine.setKillSwitch(apiKey, String(params['market']), timeout === null ? null : Number(timeout), types);
    return timer === null ? [] : killSwitchJson(timer, shapes);
  },
  // POST /api/v4/order/new: a plain limit order, as a venue client (ccxt createOrder) places it.
  limitOrder: ({ engine, apiKey, params, shapes }) => orderJson(engine.placeLimit(apiKey, {
    market: String(params['market']), side: side(params['side']),
    amount: dec(params['amount']), price: dec(params['price']), clientOrderId: str(params['clientOrderId']),
  }), shapes),
};

/** The history's `status` filter; PARTIALLY_FILLED selects orders that ended with part of their amount executed. */
function historyStatusMatches(o: SimOrder, status: string): boolean {
  if (status === 'ALL') return true;
  if (status === 'PARTIALLY_FILLED') return o.status === 'CANCELED' && !o.dealStock.isZero();
  return o.status === status;
}

/** A stable, non-secret tag of a key for fake tokens. */
function keyTag(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

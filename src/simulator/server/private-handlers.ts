import { createHash } from 'node:crypto';
import { Decimal } from '../../domain/decimal';
import type { EndpointId } from '../../exchange/http/endpoints';
import type { SimEngine } from '../engine/sim-engine';
import type { SimDeal, SimOrder, SimOrderRef } from '../engine/types';
import {
  dealJson, historyJson, killSwitchJson, mainBalanceJson, ocoJson, orderJson, tradingBalanceJson,
} from './wire-format';

/**
 * One function per private endpoint: normalised parameters (request-rules.ts spelling) in, JSON
 * answer out. Engine rejections are thrown and turned into the private error shape by the server.
 */
export interface PrivateContext {
  readonly engine: SimEngine;
  readonly apiKey: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** Market clock, Unix seconds. */
  readonly now: number;
}

/** A non-200 answer a handler returns instead of throwing (e.g. code 30 with its own field errors). */
export class PrivateAnswer {
  constructor(readonly status: number, readonly body: unknown) {}
}
type Handler = (ctx: PrivateContext) => unknown;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const dec = (v: unknown): Decimal => new Decimal(String(v));
const page = <T>(rows: readonly T[], p: Readonly<Record<string, unknown>>, defaultLimit: number): T[] => {
  const offset = num(p['offset']) ?? 0;
  return rows.slice(offset, offset + (num(p['limit']) ?? defaultLimit));
};

function orderRef(p: Readonly<Record<string, unknown>>): SimOrderRef {
  const orderId = num(p['order_id']);
  return orderId !== undefined ? { orderId } : { clientOrderId: str(p['client_order_id']) ?? '' };
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

// Served under both paths: the spec's /api/v4/orders/oco and the documentation's /api/v4/oco-orders.
const ocoListHandler: Handler = ({ engine, apiKey, params }) =>
  page(engine.activeOcos(apiKey, str(params['market'])), params, 50).map((o) => ocoJson(o));

export const PRIVATE_HANDLERS: Partial<Record<EndpointId, Handler>> = {
  tradeBalance: ({ engine, apiKey, params }) => tradingBalanceJson(engine.tradingBalances(apiKey), str(params['ticker'])),
  mainBalance: ({ engine, apiKey }) => mainBalanceJson(engine.mainBalances(apiKey)),

  codes: ({ params }) => {
    const all = [{ amount: '100', code: 'SIMCODE-0000-0000-0001', date: CREATED_AT, status: 'Activated', ticker: 'USDT', external_id: 'sim-1' }];
    return { total: all.length, data: page(all, params, 30), limit: num(params['limit']) ?? 30, offset: num(params['offset']) ?? 0 };
  },
  miningAccounts: ({ params }) => {
    const name = str(params['name']);
    const all = [{ name: 'sim-main', createdAt: CREATED_AT }];
    return { data: all.filter((a) => name === undefined || a.name === name), limit: 100, offset: 0 };
  },
  jwt: ({ apiKey, now }) => {
    const expiresAt = Math.floor(now) + 3600;
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: keyTag(apiKey), exp: expiresAt })}`;
    return { data: { token: `${body}.${createHash('sha256').update(body).digest('base64url')}`, expires_at: expiresAt } };
  },
  websocketToken: ({ apiKey }) => ({ websocket_token: `sim-ws-${keyTag(apiKey)}` }),

  activeOrders: ({ engine, apiKey, params }) => {
    const filter: { market?: string; orderId?: number; clientOrderId?: string } = {};
    const market = str(params['market']);
    const orderId = num(params['order_id']);
    const clientOrderId = str(params['client_order_id']);
    if (market !== undefined) filter.market = market;
    if (orderId !== undefined) filter.orderId = orderId;
    if (clientOrderId !== undefined) filter.clientOrderId = clientOrderId;
    return page(engine.activeOrders(apiKey, filter), params, 50).map(orderJson);
  },
  ocoList: ocoListHandler,
  ocoListAlt: ocoListHandler,
  orderHistory: ({ engine, apiKey, params }) => {
    const market = str(params['market']);
    const orderId = num(params['order_id']);
    const clientOrderId = str(params['client_order_id']);
    const status = str(params['status']) ?? 'ALL';
    const rows = engine.orderHistory(apiKey).filter((o: SimOrder) => (market === undefined || o.market === market)
      && (orderId === undefined || o.id === orderId)
      && (clientOrderId === undefined || o.clientOrderId === clientOrderId)
      && (status === 'ALL' || o.status === status)
      && inDateRange(o.finishedAt ?? o.updatedAt, params));
    if (clientOrderId !== undefined && rows.length === 0) {
      return new PrivateAnswer(422, { code: 30, message: 'Validation failed', errors: { orderHistory: ['OrderHistory was not found.'] } });
    }
    return groupByMarket(page(rows, params, 50), historyJson);
  },
  executedDeals: ({ engine, apiKey, params }) => {
    const market = str(params['market']);
    const clientOrderId = str(params['client_order_id']);
    const rows = engine.deals(apiKey).filter((d: SimDeal) => (market === undefined || d.market === market)
      && (clientOrderId === undefined || d.clientOrderId === clientOrderId) && inDateRange(d.time, params));
    const paged = page(rows, params, 50);
    return market !== undefined ? paged.map(dealJson) : groupByMarket(paged, dealJson);
  },
  killSwitchStatus: ({ engine, apiKey, params }) => engine.killSwitchStatus(apiKey, str(params['market'])).map(killSwitchJson),

  stopLimit: ({ engine, apiKey, params }) => orderJson(engine.placeStopLimit(apiKey, {
    market: String(params['market']), side: params['side'] === 'buy' ? 'buy' : 'sell',
    amount: dec(params['amount']), price: dec(params['price']), activationPrice: dec(params['activation_price']),
    clientOrderId: str(params['client_order_id']),
  })),
  collateralOco: ({ engine, apiKey, params }) => ocoJson(engine.placeOco(apiKey, {
    market: String(params['market']), side: params['side'] === 'buy' ? 'buy' : 'sell',
    amount: dec(params['amount']), price: dec(params['price']), activationPrice: dec(params['activation_price']),
    stopLimitPrice: dec(params['stop_limit_price']), clientOrderId: str(params['client_order_id']),
  }), true),
  cancelOrder: ({ engine, apiKey, params }) => orderJson(engine.cancelOrder(apiKey, String(params['market']), orderRef(params))),
  cancelOco: ({ engine, apiKey, params }) => ocoJson(engine.cancelOco(apiKey, String(params['market']), orderRef(params))),
  killSwitch: ({ engine, apiKey, params }) => {
    const timeout = params['timeout'];
    const types = Array.isArray(params['types']) ? (params['types'] as string[]) : null;
    const timer = engine.setKillSwitch(apiKey, String(params['market']), timeout === null ? null : Number(timeout), types);
    return timer === null ? [] : killSwitchJson(timer);
  },
};

/** A stable, non-secret tag of a key for fake tokens. */
function keyTag(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

import type { LimitId } from '../../limiter/limits';
import {
  BALANCE_ACCOUNT, BBO_ROLE, BOOLEAN, CLIENT_ORDER_ID, HISTORY_STATUS, INTERVAL, KILL_SWITCH_TIMEOUT, KILL_SWITCH_TYPE_LIST, MARKET,
  NAME_255, POSITION_SIDE, POSITIVE_DECIMAL, POSITIVE_ID, SIDE, STP, TICKER, TRANSFER_METHOD, UNIX_SECONDS, intRange, type FieldRule,
} from './request-fields';
import type { AnswerName } from './responses';

/**
 * THE endpoint table of the venue: every endpoint the client and the simulator speak, ONE row each,
 * in canonical names (the domain's camelCase: `clientOrderId`, `activationPrice`, ...): its method,
 * rate limit, whether it is signed and safe to retry, its path, its request fields with their rules
 * (in the signed body's order), the rules across fields, and the schema its answer is read with
 * (responses.ts). A dialect (dialects.ts) spells this table for the wire: how it writes some fields
 * and answer shapes, a path it places elsewhere, a field it does not take. The client, the request
 * rules (request-rules.ts), the answer parsing and the simulator's server all read it through a dialect.
 *
 * `idempotent` marks reads, which are safe to retry and to fail over to the other region; order
 * creation never is. Field rules come from the spec (kline, codes, mining, stop_limit) and the
 * venue's documentation (the rest). collateralBalance, collateralBalanceSummary and transfer are
 * written as openapi/private/http-trade-v4.yaml and main_api_v4.yaml of whitebit-exchange/docs have
 * them (exchange-api.md lists no fields for them); transfer succeeds with HTTP 201 and `[]`.
 */
export interface FieldSpec {
  readonly rule: FieldRule;
  readonly required: boolean;
}

/** A rule across fields, turned into a zod refinement (request-rules.ts). */
export type CrossRule =
  | { readonly kind: 'exactlyOne'; readonly fields: readonly [string, string]; readonly missing: string; readonly both: string }
  | { readonly kind: 'notAfter'; readonly first: string; readonly second: string; readonly message: string }
  /** Either `one`, or both fields of `pair` (main-account/transfer: `method`, or `from` and `to`). */
  | { readonly kind: 'oneOrPair'; readonly one: string; readonly pair: readonly [string, string] };

export interface Endpoint<A extends AnswerName | undefined = AnswerName | undefined> {
  readonly method: 'GET' | 'POST';
  readonly limit: LimitId;
  readonly private: boolean;
  readonly idempotent: boolean;
  readonly path: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly cross: readonly CrossRule[];
  /** The answer's schema; undefined on the endpoints only the simulator serves (the client reads no answer there). */
  readonly answer: A;
}

type Fields = Readonly<Record<string, FieldSpec>>;
const req = (rule: FieldRule): FieldSpec => ({ rule, required: true });
const opt = (rule: FieldRule): FieldSpec => ({ rule, required: false });
const endpoint = (method: 'GET' | 'POST', isPrivate: boolean, idempotent: boolean) =>
  <A extends AnswerName | undefined>(limit: LimitId, path: string, answer: A, fields: Fields = {}, cross: readonly CrossRule[] = []): Endpoint<A> =>
    ({ method, limit, private: isPrivate, idempotent, path, fields, cross, answer });
const pub = endpoint('GET', false, true);
const read = endpoint('POST', true, true);
const write = endpoint('POST', true, false);

const LIMIT_100 = intRange(1, 100);
const LIMIT_500 = intRange(1, 500);
/** Documented maximum of the list offsets (orders, oco-orders). */
const OFFSET = intRange(0, 4_294_967_295);
const exactlyOneId: CrossRule = {
  kind: 'exactlyOne', fields: ['orderId', 'clientOrderId'],
  missing: 'The order id field is required when client order id is not present.',
  both: 'Only one of order id and client order id may be given.',
};
const dateRange: CrossRule = { kind: 'notAfter', first: 'startDate', second: 'endDate', message: 'End date field must be greater then start date.' };
const orderRef: Fields = { market: req(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID) };
const order: Fields = { market: req(MARKET), side: req(SIDE), amount: req(POSITIVE_DECIMAL), price: req(POSITIVE_DECIMAL) };
const ticker: Fields = { ticker: opt(TICKER) };

/** The endpoints the client calls (ExchangeClient). */
export const ENDPOINTS = {
  kline: pub('kline', '/api/v1/public/kline', 'kline',
    { market: req(MARKET), start: opt(UNIX_SECONDS), end: opt(UNIX_SECONDS), interval: opt(INTERVAL), limit: opt(intRange(1, 1440)) },
    // The spec allows start == end ("must not be greater than end").
    [{ kind: 'notAfter', first: 'start', second: 'end', message: 'End field must be greater then start.' }]),
  ping: pub('public', '/api/v4/public/ping', 'ping'),
  time: pub('public', '/api/v4/public/time', 'time'),
  markets: pub('public', '/api/v4/public/markets', 'markets'),

  tradeBalance: read('tradeAccount', '/api/v4/trade-account/balance', 'tradeBalance', ticker),
  mainBalance: read('mainAccount', '/api/v4/main-account/balance', 'mainBalance', ticker),
  collateralBalance: read('collateralAccount', '/api/v4/collateral-account/balance', 'collateralBalance', ticker),
  collateralBalanceSummary: read('collateralAccount', '/api/v4/collateral-account/balance-summary', 'collateralBalanceSummary', ticker),
  codes: read('mainAccount', '/api/v4/main-account/codes/my', 'codes', { limit: opt(LIMIT_100), offset: opt(intRange(0, 10_000)) }),
  miningAccounts: read('private', '/api/v4/mining/accounts', 'miningAccounts', { name: opt(NAME_255) }),
  jwt: read('private', '/api/v4/jwt', 'jwt'),
  websocketToken: read('private', '/api/v4/profile/websocket_token', 'websocketToken'),

  activeOrders: read('activeOrders', '/api/v4/orders', 'orderList',
    { market: opt(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID), limit: opt(LIMIT_100), offset: opt(OFFSET) }),
  ocoList: read('activeOrders', '/api/v4/oco-orders', 'ocoList', { market: opt(MARKET), limit: opt(LIMIT_100), offset: opt(OFFSET) }),
  orderHistory: read('tradeAccount', '/api/v4/trade-account/order/history', 'historyList', {
    market: opt(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID), status: opt(HISTORY_STATUS),
    startDate: opt(UNIX_SECONDS), endDate: opt(UNIX_SECONDS), limit: opt(LIMIT_500), offset: opt(OFFSET),
  }, [dateRange]),
  executedDeals: read('tradeAccount', '/api/v4/trade-account/executed-history', 'dealList', {
    market: opt(MARKET), clientOrderId: opt(CLIENT_ORDER_ID), startDate: opt(UNIX_SECONDS), endDate: opt(UNIX_SECONDS),
    limit: opt(LIMIT_500), offset: opt(OFFSET),
  }, [dateRange]),
  killSwitchStatus: read('orders', '/api/v4/order/kill-switch/status', 'killSwitchStatus', { market: opt(MARKET) }),

  stopLimit: write('orders', '/api/v4/order/stop_limit', 'order',
    { ...order, activationPrice: req(POSITIVE_DECIMAL), clientOrderId: opt(CLIENT_ORDER_ID), bboRole: opt(BBO_ROLE), stp: opt(STP) }),
  collateralOco: write('orders', '/api/v4/order/collateral/oco', 'createdOco', {
    ...order, activationPrice: req(POSITIVE_DECIMAL), stopLimitPrice: req(POSITIVE_DECIMAL), clientOrderId: opt(CLIENT_ORDER_ID),
    reduceOnly: opt(BOOLEAN), positionSide: opt(POSITION_SIDE), stp: opt(STP),
  }),
  cancelOrder: write('orders', '/api/v4/order/cancel', 'order', orderRef, [exactlyOneId]),
  cancelOco: write('orders', '/api/v4/order/oco-cancel', 'canceledOco', orderRef, [exactlyOneId]),
  // Setting the timer again is harmless, but it is still a write: no blind region failover. `timeout`
  // must be present (null deletes the timer): its rule reports the missing key itself.
  killSwitch: write('orders', '/api/v4/order/kill-switch', 'killSwitchResult',
    { market: req(MARKET), timeout: req(KILL_SWITCH_TIMEOUT), types: opt(KILL_SWITCH_TYPE_LIST) }),
  // Moves money between the main, spot and collateral balances: never retried blindly. The
  // documentation recommends `from` and `to`; `method` is the older, deprecated form.
  transfer: write('mainAccount', '/api/v4/main-account/transfer', 'transfer',
    { ticker: req(TICKER), amount: req(POSITIVE_DECIMAL), from: opt(BALANCE_ACCOUNT), to: opt(BALANCE_ACCOUNT), method: opt(TRANSFER_METHOD) },
    [{ kind: 'oneOrPair', one: 'method', pair: ['from', 'to'] }]),
} as const satisfies Record<string, Endpoint<AnswerName>>;

export type EndpointId = keyof typeof ENDPOINTS;
/** The name of the schema an endpoint's answer is read with. */
export type AnswerOf<E extends EndpointId> = (typeof ENDPOINTS)[E]['answer'];

/**
 * Endpoints only the simulated exchange serves: a client written against the real venue (ccxt's
 * `whitebit` class) calls them on its way to the ones above (`loadMarkets` reads the assets,
 * `fetchTicker(s)` the tickers, a plain limit order goes to `order/new`).
 */
export const SIMULATOR_ONLY_ENDPOINTS = {
  assets: pub('public', '/api/v4/public/assets', undefined),
  tickers: pub('public', '/api/v4/public/ticker', undefined),
  tickerV1: pub('kline', '/api/v1/public/ticker', undefined, { market: req(MARKET) }),
  limitOrder: write('orders', '/api/v4/order/new', undefined,
    { ...order, clientOrderId: opt(CLIENT_ORDER_ID), postOnly: opt(BOOLEAN), ioc: opt(BOOLEAN) }),
} as const satisfies Record<string, Endpoint<undefined>>;

export type WireEndpointId = EndpointId | keyof typeof SIMULATOR_ONLY_ENDPOINTS;

/** Every endpoint a dialect spells: the client's and the simulator-only ones. */
export const WIRE_ENDPOINTS: Readonly<Record<WireEndpointId, Endpoint>> = { ...ENDPOINTS, ...SIMULATOR_ONLY_ENDPOINTS };

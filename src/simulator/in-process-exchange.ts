import { SystemClock, type Clock } from '../core/clock';
import type { Candle } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import { ExchangeRejectedError } from '../domain/errors';
import type { Balances, MarketInfo, MarketName } from '../domain/market';
import type { DealReport, HistoryOrderReport, KillSwitchTimer, OcoReport, OrderReport } from '../domain/order';
import type {
  ActiveOrdersQuery, CodesPage, CollateralAssetBalance, ExchangeClient, FetchCandlesRequest, HistoryQuery, MiningAccountsPage,
  OrderRef, PageQuery, PlaceOcoRequest, PlaceStopLimitRequest, TransferRequest,
} from '../exchange/exchange-client';
import { badResponse, classifyAnswer, isErrorShape } from '../exchange/http/errors';
import type { ResponseOf } from '../exchange/wire/answers';
import { DEFAULT_DIALECT, DIALECTS, type Dialect, type DialectName } from '../exchange/wire/dialects';
import type { EndpointId } from '../exchange/wire/endpoints';
import { requestCodec, type RequestCodec } from '../exchange/wire/request-codec';
import type { SimEngine } from './engine/sim-engine';
import type { MarketFeed } from './market/market-feed';
import { balancesOf, collateralSummaryOf, historyReportOf, ocoReportOf, orderReportOf } from './engine-reports';
import {
  activeOrderRows, historyRows, ocoInput, ocoRows, orderRef, PRIVATE_HANDLERS, PrivateAnswer, stopLimitInput,
} from './server/private-handlers';
import { PUBLIC_HANDLERS, type PublicEndpointId } from './server/public-handlers';

export interface InProcessExchangeOptions {
  readonly engine: SimEngine;
  /** The account (the simulator's API key) every private call acts on. */
  readonly apiKey: string;
  /**
   * The simulator's market feed, in paper mode: klines come from it, and the engine is brought up to
   * the market clock before each call, as the HTTP server does. A backtest drives the engine itself
   * and has none (no klines).
   */
  readonly feed?: MarketFeed | undefined;
  /** `public/time` and the jwt's expiry; default SystemClock. */
  readonly wallClock?: Clock | undefined;
  /** Whose answer shapes the handlers write and the parsers read; default the venue's. */
  readonly dialect?: DialectName | undefined;
}

/** No WebSocket server runs in this process: the token is well formed and opens nothing. */
function noWebSocket(): string {
  return 'sim-ws-in-process';
}

/** Drops undefined values, as the HTTP client does before the request rules see the parameters. */
function defined(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in o) if (o[key] !== undefined) out[key] = o[key];
  return out;
}

/**
 * The ExchangeClient port over the simulator's engine in this process: no HTTP, no signing, no rate
 * limit (the backtest's transport, and paper mode's second one in the parity test). Two paths:
 * - `call`: the HTTP simulator's own handler for the endpoint (server/private-handlers.ts,
 *   public-handlers.ts: canonical parameters in, the dialect's JSON out), read back with the HTTP
 *   client's parsers (exchange/wire/) and error table: klines, time, the main and collateral
 *   balances, transfers, deals, the kill-switch, codes, mining accounts, tokens.
 * - `direct`: the calls a backtest makes per order (markets, the trading balance, the collateral
 *   summary, placing and cancelling orders and OCOs, the active lists, the history) use the handlers'
 *   own input readers and row selectors, then map engine objects to reports in engine-reports.ts
 *   instead of writing and parsing JSON; refusals still go through the error table, worded as the
 *   HTTP server words them. The parity test and the ExchangeClient contract, run over both
 *   transports, hold the two mappings to the same answers.
 * What is left out either way is what only HTTP has: the client's request rules, nonces,
 * signatures, limiter waits and transport failures.
 */
export class InProcessExchange implements ExchangeClient {
  private readonly dialect: Dialect;
  private readonly codec: RequestCodec;
  private readonly wallClock: Clock;
  private lastSyncMs = Number.NaN;

  constructor(private readonly o: InProcessExchangeOptions) {
    this.dialect = DIALECTS[o.dialect ?? DEFAULT_DIALECT];
    this.codec = requestCodec(this.dialect);
    this.wallClock = o.wallClock ?? new SystemClock();
  }

  ping(): Promise<boolean> {
    return this.call('ping', {});
  }
  fetchServerTime(): Promise<number> {
    return this.call('time', {});
  }
  fetchMarkets(): Promise<MarketInfo[]> {
    // Direct too: every backtest asks once at start, and the parsed path would load every endpoint's answer schema for it.
    return this.direct('markets', (engine) => engine.markets().map((m) => ({ ...m })));
  }
  fetchCandles(r: FetchCandlesRequest): Promise<Candle[]> {
    return this.call('kline', defined({ market: r.market, interval: r.interval, start: r.start, end: r.end, limit: r.limit }));
  }
  fetchTradingBalances(ticker?: string): Promise<Balances> {
    return this.direct('tradeBalance', (engine, apiKey) => balancesOf(engine.tradingBalances(apiKey), ticker));
  }
  fetchMainBalances(): Promise<Readonly<Record<string, Decimal>>> {
    return this.call('mainBalance', {});
  }
  fetchCollateralBalances(ticker?: string): Promise<Readonly<Record<string, Decimal>>> {
    return this.call('collateralBalance', defined({ ticker }));
  }
  fetchCollateralBalanceSummary(ticker?: string): Promise<Readonly<Record<string, CollateralAssetBalance>>> {
    return this.direct('collateralBalanceSummary', (engine, apiKey) => collateralSummaryOf(engine.collateralBalances(apiKey), ticker));
  }
  transferBetweenBalances(r: TransferRequest): Promise<void> {
    return this.call('transfer', { ticker: r.ticker, amount: String(r.amount), from: r.from, to: r.to });
  }
  placeStopLimit(r: PlaceStopLimitRequest): Promise<OrderReport> {
    const params = defined({
      market: r.market, side: r.side, amount: r.amount, price: r.price, activationPrice: r.activationPrice, clientOrderId: r.clientOrderId,
    });
    return this.direct('stopLimit', (engine, apiKey) => orderReportOf(engine.placeStopLimit(apiKey, stopLimitInput(params))));
  }
  placeOco(r: PlaceOcoRequest): Promise<OcoReport> {
    const params = defined({
      market: r.market, side: r.side, amount: r.amount, price: r.price, activationPrice: r.activationPrice,
      stopLimitPrice: r.stopLimitPrice, clientOrderId: r.clientOrderId,
    });
    return this.direct('collateralOco', (engine, apiKey) => ocoReportOf(engine.placeOco(apiKey, ocoInput(params))));
  }
  cancelOrder(ref: OrderRef): Promise<OrderReport> {
    const params = defined({ market: ref.market, orderId: ref.orderId, clientOrderId: ref.clientOrderId });
    return this.direct('cancelOrder', (engine, apiKey) => orderReportOf(engine.cancelOrder(apiKey, String(params['market']), orderRef(params))));
  }
  cancelOco(ref: OrderRef): Promise<OcoReport> {
    const params = defined({ market: ref.market, orderId: ref.orderId, clientOrderId: ref.clientOrderId });
    return this.direct('cancelOco', (engine, apiKey) => ocoReportOf(engine.cancelOco(apiKey, String(params['market']), orderRef(params))));
  }
  fetchActiveOrders(q: ActiveOrdersQuery = {}): Promise<OrderReport[]> {
    const params = defined({ market: q.market, orderId: q.orderId, clientOrderId: q.clientOrderId, limit: q.limit, offset: q.offset });
    return this.direct('activeOrders', (engine, apiKey) => activeOrderRows(engine, apiKey, params).map(orderReportOf));
  }
  fetchActiveOcoOrders(q: { readonly market: MarketName } & PageQuery): Promise<OcoReport[]> {
    const params = defined({ market: q.market, limit: q.limit, offset: q.offset });
    return this.direct('ocoList', (engine, apiKey) => ocoRows(engine, apiKey, params).map(ocoReportOf));
  }
  fetchOrderHistory(q: HistoryQuery = {}): Promise<HistoryOrderReport[]> {
    const params = defined({
      market: q.market, orderId: q.orderId, clientOrderId: q.clientOrderId, status: q.status,
      startDate: q.startDate, endDate: q.endDate, limit: q.limit, offset: q.offset,
    });
    return this.direct('orderHistory', (engine, apiKey) => {
      const rows = historyRows(engine, apiKey, params);
      return rows instanceof PrivateAnswer ? rows : rows.map(historyReportOf);
    });
  }
  fetchExecutedDeals(q: Omit<HistoryQuery, 'status' | 'orderId'> = {}): Promise<DealReport[]> {
    return this.call('executedDeals', defined({
      market: q.market, clientOrderId: q.clientOrderId, startDate: q.startDate, endDate: q.endDate, limit: q.limit, offset: q.offset,
    }));
  }
  setKillSwitch(r: { readonly market: MarketName; readonly timeoutSeconds: number | null; readonly types?: readonly ('spot' | 'margin' | 'futures')[] }): Promise<KillSwitchTimer | null> {
    return this.call('killSwitch', defined({ market: r.market, timeout: r.timeoutSeconds === null ? null : String(r.timeoutSeconds), types: r.types }));
  }
  fetchKillSwitchStatus(market?: MarketName): Promise<KillSwitchTimer[]> {
    return this.call('killSwitchStatus', defined({ market }));
  }
  fetchCodes(q: PageQuery = {}): Promise<CodesPage> {
    return this.call('codes', defined({ limit: q.limit, offset: q.offset }));
  }
  fetchMiningAccounts(q: { readonly name?: string } = {}): Promise<MiningAccountsPage> {
    return this.call('miningAccounts', defined({ name: q.name }));
  }
  issueJwt(): Promise<{ readonly token: string; readonly expiresAt: number }> {
    return this.call('jwt', {});
  }
  fetchWebsocketToken(): Promise<string> {
    return this.call('websocketToken', {});
  }

  /**
   * The hot calls of a backtest (orders, active lists, history, balances) skip the dialect's JSON and
   * the zod parse: the engine's objects become reports directly (engine-reports.ts); refusals still go
   * through the HTTP client's error table, worded as the HTTP server words them.
   */
  private direct<T>(endpoint: EndpointId, run: (engine: SimEngine, apiKey: string) => T | PrivateAnswer): Promise<T> {
    this.sync();
    try {
      const result = run(this.o.engine, this.o.apiKey);
      if (result instanceof PrivateAnswer) return Promise.reject(this.refusal(endpoint, result.status, result.body));
      return Promise.resolve(result);
    } catch (error) {
      if (!(error instanceof ExchangeRejectedError)) return Promise.reject(error);
      return Promise.reject(this.refusal(endpoint, ...this.worded(endpoint, error)));
    }
  }

  private refusal(endpoint: EndpointId, status: number, body: unknown): Error {
    return classifyAnswer({ endpoint, path: this.dialect.endpoints[endpoint].path, isPrivate: true, status, body });
  }

  /** A refusal as the HTTP server words it (sim-http-server.ts), so it maps to the same error. */
  private worded(endpoint: EndpointId, error: ExchangeRejectedError): [number, unknown] {
    const errors: Record<string, string[]> = {};
    for (const [field, messages] of Object.entries(error.fieldErrors)) errors[this.codec.wireName(endpoint, field)] = [...messages];
    return [error.httpStatus ?? 400, { code: error.venueCode ?? 0, message: error.message, errors }];
  }

  /** Runs the endpoint's handler and parses its answer; refusals become the HTTP client's errors. */
  private call<E extends EndpointId>(endpoint: E, params: Readonly<Record<string, unknown>>): Promise<ResponseOf<E>> {
    try {
      return Promise.resolve(this.answer(endpoint, params));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private answer<E extends EndpointId>(endpoint: E, params: Readonly<Record<string, unknown>>): ResponseOf<E> {
    this.sync();
    const { path, private: isPrivate } = this.dialect.endpoints[endpoint];
    const [status, body] = isPrivate ? this.servePrivate(endpoint, params) : this.servePublic(endpoint, params);
    const venue = { endpoint, path, isPrivate, status, body };
    if (status >= 400 || isErrorShape(venue)) throw classifyAnswer(venue);
    // Loaded on first use: a backtest's calls take the direct path and never parse an answer, and
    // loading the parsers costs every backtest run (bench/RESULTS.md, "One trading kernel").
    const { answerSchema } = require('../exchange/wire/answers') as typeof import('../exchange/wire/answers');
    const parsed = answerSchema(this.dialect, endpoint).safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badResponse(endpoint, path, status, `unexpected shape at ${issue === undefined ? '' : `${issue.path.join('.') || '(root)'}: ${issue.message}`} (in process)`);
    }
    return parsed.data as ResponseOf<E>;
  }

  private servePrivate(endpoint: EndpointId, params: Readonly<Record<string, unknown>>): readonly [number, unknown] {
    const handler = PRIVATE_HANDLERS[endpoint as keyof typeof PRIVATE_HANDLERS];
    const engine = this.o.engine;
    try {
      const result = handler({ engine, apiKey: this.o.apiKey, params, now: engine.now(), shapes: this.dialect.shapes, issueWebsocketToken: noWebSocket });
      return result instanceof PrivateAnswer ? [result.status, result.body] : [200, result];
    } catch (error) {
      if (!(error instanceof ExchangeRejectedError)) throw error;
      return this.worded(endpoint, error);
    }
  }

  private servePublic(endpoint: EndpointId, params: Readonly<Record<string, unknown>>): readonly [number, unknown] {
    const feed = this.o.feed;
    if (endpoint === 'kline' && feed === undefined) throw badResponse(endpoint, this.dialect.endpoints[endpoint].path, 404, 'no market feed in this process');
    return PUBLIC_HANDLERS[endpoint as PublicEndpointId]({
      engine: this.o.engine, feed: feed as MarketFeed, params, shapes: this.dialect.shapes, marketNow: this.o.engine.now(), wallNowMs: this.wallClock.nowMs(),
    });
  }

  /** As the HTTP server before each request: the engine catches up with the market clock (cheap when it has not moved). */
  private sync(): void {
    const feed = this.o.feed;
    if (feed === undefined) return;
    const now = this.o.engine.now();
    if (now === this.lastSyncMs) return;
    this.lastSyncMs = now;
    feed.sync();
  }
}

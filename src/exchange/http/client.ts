import type { Clock } from '../../core/clock';
import type { Candle } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { ConfigError } from '../../domain/errors';
import type { Balances, MarketInfo, MarketName } from '../../domain/market';
import type { DealReport, HistoryOrderReport, KillSwitchTimer, OcoReport, OrderReport } from '../../domain/order';
import type { RateLimiter } from '../../limiter/rate-limiter';
import type {
  ActiveOrdersQuery, CodesPage, CollateralAssetBalance, ExchangeClient, FetchCandlesRequest, HistoryQuery, MiningAccountsPage,
  OrderRef, PageQuery, PlaceOcoRequest, PlaceStopLimitRequest, TransferRequest,
} from '../exchange-client';
import type { NonceSource } from '../nonce/nonce-source';
import { DEFAULT_DIALECT, DIALECTS, type DialectName } from '../wire/dialects';
import { ClientIdEchoGuard } from './echo-guard';
import { RequestRunner, type RequestEvent, type RetryPolicy } from './request-runner';
import { DEFAULT_MAX_RESPONSE_BYTES, KyTransport, type Transport } from './transport';

export type { RequestEvent, RetryPolicy } from './request-runner';

/**
 * What `onRequest` receives after every HTTP attempt: the runner's event plus `error`, the error the
 * attempt failed with (undefined when it succeeded), so metrics can tell a refused nonce (a
 * RateLimitedError with `context.nonce`) from a real 429; `outcome` holds only the error code, which
 * is the same for both. The runner fills `error` once its RequestEvent carries it.
 */
export type ClientRequestEvent = RequestEvent & { readonly error?: unknown };

export interface HttpExchangeClientOptions {
  /** Global server, e.g. https://whitebit.com */
  readonly baseUrl: string;
  /** Second regional server with the same interface, e.g. https://whitebit.eu (reads fail over to it). */
  readonly euBaseUrl?: string;
  /** Which server is tried first; 'eu' requires euBaseUrl. */
  readonly primaryRegion: 'global' | 'eu';
  /** Needed for private endpoints only. */
  readonly credentials?: { readonly apiKey: string; readonly apiSecret: string };
  readonly nonceSource: NonceSource;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Deadline of one HTTP attempt, from connect to the last byte of the answer. */
  readonly timeoutMs: number;
  /** Answers larger than this are refused and their connection dropped (default 8 MiB). */
  readonly maxResponseBytes?: number;
  /** Send `nonceWindow: true` (nonce = Unix ms within +-5 s, unique). Default true. */
  readonly nonceWindow?: boolean;
  /** How the venue spells paths and fields (src/exchange/wire/). Default `venue`, the exchange's documented wire. */
  readonly dialect?: DialectName;
  /** Reads only; default { attempts: 3, baseDelayMs: 250, maxDelayMs: 5000 }. */
  readonly retry?: RetryPolicy;
  /** Called after every HTTP attempt (metrics). Exceptions thrown by it are ignored. */
  readonly onRequest?: (event: ClientRequestEvent) => void;
  /** Replaces the ky transport (tests, benchmarks). */
  readonly transport?: Transport;
  /** Backoff sleep and jitter source; defaults setTimeout and Math.random. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /** Re-measures the server's clock after a refused nonce, before the one retry (clock-offset.ts). */
  readonly resyncClock?: () => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 5000 };

/** Drops undefined values, so optional parameters never reach the wire as `null`. */
function defined(o: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** A caller's DecimalInput as the request rules take it: Decimal -> plain string; strings/numbers as given. */
const money = (v: unknown): unknown => (typeof v === 'object' && v !== null ? String(v) : v);

/**
 * The exchange over HTTP. Every method checks its request with the endpoint table's rules first
 * (RequestValidationError, nothing sent), waits for the rate limiter, signs with a fresh nonce and
 * sends; see RequestRunner for the retry and failover rules (reads retry, writes never resend).
 * Cancels take the limiter's high priority so they overtake queued reads.
 */
export class HttpExchangeClient implements ExchangeClient {
  private readonly runner: RequestRunner;
  private readonly guard: ClientIdEchoGuard;

  constructor(options: HttpExchangeClientOptions) {
    const global = { name: 'global' as const, baseUrl: trimSlash(options.baseUrl) };
    const eu = options.euBaseUrl === undefined ? undefined : { name: 'eu' as const, baseUrl: trimSlash(options.euBaseUrl) };
    if (options.primaryRegion === 'eu' && eu === undefined) {
      throw new ConfigError('primaryRegion "eu" needs euBaseUrl', { path: 'exchange.euBaseUrl' });
    }
    const regions = options.primaryRegion === 'eu' ? [eu!, global] : eu === undefined ? [global] : [global, eu];
    const dialect = options.dialect ?? DEFAULT_DIALECT;
    const runnerOptions = {
      regions,
      credentials: options.credentials,
      nonceSource: options.nonceSource,
      limiter: options.limiter,
      clock: options.clock,
      transport: options.transport ?? new KyTransport({ timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES }),
      nonceWindow: options.nonceWindow ?? true,
      dialect: DIALECTS[dialect],
      retry: options.retry ?? DEFAULT_RETRY,
      onRequest: options.onRequest,
      sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
      random: options.random ?? Math.random,
      resyncClock: options.resyncClock,
    };
    this.runner = new RequestRunner(runnerOptions);
    // Another dialect is spoken only to cancel an order whose create answer came back in it.
    this.guard = new ClientIdEchoGuard(dialect, this.runner, (other) => new RequestRunner({ ...runnerOptions, dialect: DIALECTS[other] }));
  }

  /** The request preparation (check, nonce, body, base64, HMAC) without sending; for benchmarks and tooling. */
  get requestRunner(): RequestRunner {
    return this.runner;
  }

  ping(): Promise<boolean> {
    return this.runner.call('ping', {});
  }
  fetchServerTime(): Promise<number> {
    return this.runner.call('time', {});
  }
  fetchMarkets(): Promise<MarketInfo[]> {
    return this.runner.call('markets', {});
  }
  fetchCandles(r: FetchCandlesRequest): Promise<Candle[]> {
    return this.runner.call('kline', defined({ market: r.market, interval: r.interval, start: r.start, end: r.end, limit: r.limit }));
  }
  fetchTradingBalances(ticker?: string): Promise<Balances> {
    return this.runner.call('tradeBalance', defined({ ticker }));
  }
  fetchMainBalances(): Promise<Readonly<Record<string, Decimal>>> {
    return this.runner.call('mainBalance', {});
  }
  fetchCollateralBalances(ticker?: string): Promise<Readonly<Record<string, Decimal>>> {
    return this.runner.call('collateralBalance', defined({ ticker }));
  }
  fetchCollateralBalanceSummary(ticker?: string): Promise<Readonly<Record<string, CollateralAssetBalance>>> {
    return this.runner.call('collateralBalanceSummary', defined({ ticker }));
  }
  /** Not retried: an unanswered transfer is checked by reading the balances, never sent twice. */
  transferBetweenBalances(r: TransferRequest): Promise<void> {
    return this.runner.call('transfer', { ticker: r.ticker, amount: money(r.amount), from: r.from, to: r.to });
  }

  /**
   * At most one attempt: on RequestTimeoutError / ExchangeUnavailableError look the order up by its
   * client order id. An answer that does not echo that id: ClientOrderIdIgnoredError (echo-guard.ts).
   */
  placeStopLimit(r: PlaceStopLimitRequest): Promise<OrderReport> {
    return this.guard.placeStopLimit(defined({
      market: r.market, side: r.side, amount: money(r.amount), price: money(r.price),
      activationPrice: money(r.activationPrice), clientOrderId: r.clientOrderId, bboRole: r.bboRole, stp: r.stp,
    }));
  }
  /** Collateral OCO (the only OCO create endpoint). At most one attempt, as placeStopLimit. */
  placeOco(r: PlaceOcoRequest): Promise<OcoReport> {
    return this.guard.placeOco(defined({
      market: r.market, side: r.side, amount: money(r.amount), price: money(r.price),
      activationPrice: money(r.activationPrice), stopLimitPrice: money(r.stopLimitPrice),
      clientOrderId: r.clientOrderId, stp: r.stp,
    }));
  }
  cancelOrder(ref: OrderRef): Promise<OrderReport> {
    return this.runner.call('cancelOrder', refParams(ref), 'high');
  }
  cancelOco(ref: OrderRef): Promise<OcoReport> {
    return this.runner.call('cancelOco', refParams(ref), 'high');
  }

  fetchActiveOrders(q: ActiveOrdersQuery = {}): Promise<OrderReport[]> {
    return this.runner.call('activeOrders', defined({
      market: q.market, orderId: q.orderId, clientOrderId: q.clientOrderId, limit: q.limit, offset: q.offset,
    }));
  }
  fetchActiveOcoOrders(q: { readonly market: MarketName } & PageQuery): Promise<OcoReport[]> {
    return this.runner.call('ocoList', defined({ market: q.market, limit: q.limit, offset: q.offset }));
  }
  fetchOrderHistory(q: HistoryQuery = {}): Promise<HistoryOrderReport[]> {
    return this.runner.call('orderHistory', defined({
      market: q.market, orderId: q.orderId, clientOrderId: q.clientOrderId, status: q.status,
      startDate: q.startDate, endDate: q.endDate, limit: q.limit, offset: q.offset,
    }));
  }
  fetchExecutedDeals(q: Omit<HistoryQuery, 'status' | 'orderId'> = {}): Promise<DealReport[]> {
    return this.runner.call('executedDeals', defined({
      market: q.market, clientOrderId: q.clientOrderId, startDate: q.startDate, endDate: q.endDate,
      limit: q.limit, offset: q.offset,
    }));
  }

  setKillSwitch(r: {
    readonly market: MarketName;
    readonly timeoutSeconds: number | null;
    readonly types?: readonly ('spot' | 'margin' | 'futures')[];
  }): Promise<KillSwitchTimer | null> {
    // The venue wants the timeout as a string of seconds, and the key present (null deletes).
    const timeout = r.timeoutSeconds === null ? null : String(r.timeoutSeconds);
    return this.runner.call('killSwitch', defined({ market: r.market, timeout, types: r.types }));
  }
  fetchKillSwitchStatus(market?: MarketName): Promise<KillSwitchTimer[]> {
    return this.runner.call('killSwitchStatus', defined({ market }));
  }

  fetchCodes(q: PageQuery = {}): Promise<CodesPage> {
    return this.runner.call('codes', defined({ limit: q.limit, offset: q.offset }));
  }
  fetchMiningAccounts(q: { readonly name?: string } = {}): Promise<MiningAccountsPage> {
    return this.runner.call('miningAccounts', defined({ name: q.name }));
  }
  issueJwt(): Promise<{ readonly token: string; readonly expiresAt: number }> {
    return this.runner.call('jwt', {});
  }
  fetchWebsocketToken(): Promise<string> {
    return this.runner.call('websocketToken', {});
  }
}

function refParams(ref: OrderRef): Record<string, unknown> {
  return defined({ market: ref.market, orderId: ref.orderId, clientOrderId: ref.clientOrderId });
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

import type { LimitId } from '../../limiter/limits';

/**
 * Every endpoint tradebot speaks: its method, whether it is signed, and the rate limit it draws from.
 * Paths and field names are NOT here: they belong to a wire dialect (src/exchange/wire/), which
 * spells each endpoint for one venue. `idempotent` marks reads, which are safe to retry and to fail
 * over to the other region; order creation never is.
 */
export interface EndpointSpec {
  readonly method: 'GET' | 'POST';
  readonly limit: LimitId;
  readonly private: boolean;
  readonly idempotent: boolean;
}

const pub = (limit: LimitId = 'public'): EndpointSpec => ({ method: 'GET', limit, private: false, idempotent: true });
const read = (limit: LimitId): EndpointSpec => ({ method: 'POST', limit, private: true, idempotent: true });
const write = (limit: LimitId): EndpointSpec => ({ method: 'POST', limit, private: true, idempotent: false });

/** The endpoints the client calls (ExchangeClient). */
export const ENDPOINTS = {
  kline: pub('kline'),
  ping: pub(),
  time: pub(),
  markets: pub(),

  tradeBalance: read('tradeAccount'),
  mainBalance: read('mainAccount'),
  codes: read('mainAccount'),
  miningAccounts: read('private'),
  jwt: read('private'),
  websocketToken: read('private'),

  activeOrders: read('activeOrders'),
  ocoList: read('activeOrders'),
  orderHistory: read('tradeAccount'),
  executedDeals: read('tradeAccount'),
  killSwitchStatus: read('orders'),

  stopLimit: write('orders'),
  collateralOco: write('orders'),
  cancelOrder: write('orders'),
  cancelOco: write('orders'),
  // Setting the timer again is harmless, but it is still a write: no blind region failover.
  killSwitch: write('orders'),
} as const satisfies Record<string, EndpointSpec>;

export type EndpointId = keyof typeof ENDPOINTS;

/**
 * Endpoints only the simulated exchange serves: a client written against the real venue (ccxt's
 * `whitebit` class) calls them on its way to the ones above (`loadMarkets` reads the assets,
 * `fetchTicker(s)` the tickers, a plain limit order goes to `order/new`).
 */
export const SIMULATOR_ONLY_ENDPOINTS = {
  assets: pub(),
  tickers: pub(),
  tickerV1: pub('kline'),
  limitOrder: write('orders'),
} as const satisfies Record<string, EndpointSpec>;

export type WireEndpointId = EndpointId | keyof typeof SIMULATOR_ONLY_ENDPOINTS;

/** Every endpoint a dialect spells: the client's and the simulator-only ones. */
export const WIRE_ENDPOINTS: Readonly<Record<WireEndpointId, EndpointSpec>> = { ...ENDPOINTS, ...SIMULATOR_ONLY_ENDPOINTS };

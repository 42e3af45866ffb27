import type { LimitId } from '../../limiter/limits';

/**
 * Every endpoint tradebot speaks: its path, method and the rate limit it draws from. The client and
 * the simulated exchange both read this table. `idempotent` marks reads, which are safe to retry
 * and to fail over to the other region; order creation never is.
 */
export interface EndpointSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly limit: LimitId;
  readonly private: boolean;
  readonly idempotent: boolean;
}

const pub = (path: string, limit: LimitId = 'public'): EndpointSpec => ({ method: 'GET', path, limit, private: false, idempotent: true });
const read = (path: string, limit: LimitId): EndpointSpec => ({ method: 'POST', path, limit, private: true, idempotent: true });
const write = (path: string, limit: LimitId): EndpointSpec => ({ method: 'POST', path, limit, private: true, idempotent: false });

export const ENDPOINTS = {
  kline: pub('/api/v1/public/kline', 'kline'),
  ping: pub('/api/v4/public/ping'),
  time: pub('/api/v4/public/time'),
  markets: pub('/api/v4/public/markets'),

  tradeBalance: read('/api/v4/trade-account/balance', 'tradeAccount'),
  mainBalance: read('/api/v4/main-account/balance', 'mainAccount'),
  codes: read('/api/v4/main-account/codes/my', 'mainAccount'),
  miningAccounts: read('/api/v4/mining/accounts', 'private'),
  jwt: read('/api/v4/jwt', 'private'),
  websocketToken: read('/api/v4/profile/websocket_token', 'private'),

  activeOrders: read('/api/v4/orders', 'activeOrders'),
  /** The spec's path; the exchange's own documentation uses /api/v4/oco-orders (ocoListAlt). */
  ocoList: read('/api/v4/orders/oco', 'activeOrders'),
  ocoListAlt: read('/api/v4/oco-orders', 'activeOrders'),
  orderHistory: read('/api/v4/trade-account/order/history', 'tradeAccount'),
  executedDeals: read('/api/v4/trade-account/executed-history', 'tradeAccount'),
  killSwitchStatus: read('/api/v4/order/kill-switch/status', 'orders'),

  stopLimit: write('/api/v4/order/stop_limit', 'orders'),
  collateralOco: write('/api/v4/order/collateral/oco', 'orders'),
  cancelOrder: write('/api/v4/order/cancel', 'orders'),
  cancelOco: write('/api/v4/order/oco-cancel', 'orders'),
  // Setting the timer again is harmless, but it is still a write: no blind region failover.
  killSwitch: write('/api/v4/order/kill-switch', 'orders'),
} as const satisfies Record<string, EndpointSpec>;

export type EndpointId = keyof typeof ENDPOINTS;

import type { WireEndpointId } from '../http/endpoints';
import type { ShapeId } from './answer-shapes';

/**
 * Every endpoint the client and the simulator speak, ONE row each, in canonical names: its path, the
 * canonical request fields it takes, and the answer shapes it returns. A dialect (dialect.ts) is this
 * table plus its differences: how it spells some fields, a path it places elsewhere, a field it does
 * not take, and how it spells some answer shapes.
 *
 * collateralBalance, collateralBalanceSummary and transfer are endpoints exchange-api.md does not
 * describe (its account and collateral sections list no fields); they are written as the venue's
 * documentation has them (openapi/private/http-trade-v4.yaml, openapi/private/main_api_v4.yaml of
 * whitebit-exchange/docs):
 * - collateral-account/balance: `{"BTC":1,"USDT":1000}`, JSON numbers per asset;
 * - collateral-account/balance-summary: `[{"asset","balance","borrow","availableWithoutBorrow","availableWithBorrow"}]`;
 * - main-account/transfer: `ticker`, `amount`, and `from` + `to` (`main` | `spot` | `collateral`) or the
 *   older `method`; success is HTTP 201 with `[]`.
 */
export interface EndpointRow {
  readonly path: string;
  readonly fields: readonly string[];
  readonly answer: readonly ShapeId[];
}

const row = (path: string, fields: readonly string[], answer: readonly ShapeId[] = []): EndpointRow => ({ path, fields, answer });

export const ENDPOINT_TABLE: Readonly<Record<WireEndpointId, EndpointRow>> = {
  kline: row('/api/v1/public/kline', ['market', 'start', 'end', 'interval', 'limit'], ['v1Envelope']),
  ping: row('/api/v4/public/ping', []),
  time: row('/api/v4/public/time', [], ['time']),
  markets: row('/api/v4/public/markets', [], ['market']),
  assets: row('/api/v4/public/assets', []),
  tickers: row('/api/v4/public/ticker', []),
  tickerV1: row('/api/v1/public/ticker', ['market'], ['v1Envelope']),

  tradeBalance: row('/api/v4/trade-account/balance', ['ticker'], ['balanceEntry']),
  mainBalance: row('/api/v4/main-account/balance', ['ticker'], ['mainBalanceEntry']),
  collateralBalance: row('/api/v4/collateral-account/balance', ['ticker']),
  collateralBalanceSummary: row('/api/v4/collateral-account/balance-summary', ['ticker'], ['collateralAsset']),
  codes: row('/api/v4/main-account/codes/my', ['limit', 'offset'], ['codesPage', 'code']),
  miningAccounts: row('/api/v4/mining/accounts', ['name'], ['miningPage', 'miningAccount']),
  jwt: row('/api/v4/jwt', [], ['jwt', 'jwtData']),
  websocketToken: row('/api/v4/profile/websocket_token', [], ['websocketToken']),
  transfer: row('/api/v4/main-account/transfer', ['ticker', 'amount', 'from', 'to', 'method']),

  activeOrders: row('/api/v4/orders', ['market', 'orderId', 'clientOrderId', 'limit', 'offset'], ['order']),
  ocoList: row('/api/v4/oco-orders', ['market', 'limit', 'offset'], ['oco', 'ocoListLeg']),
  orderHistory: row('/api/v4/trade-account/order/history', ['market', 'orderId', 'clientOrderId', 'status', 'startDate', 'endDate', 'limit', 'offset'], ['historyOrder']),
  executedDeals: row('/api/v4/trade-account/executed-history', ['market', 'clientOrderId', 'startDate', 'endDate', 'limit', 'offset'], ['deal']),
  killSwitchStatus: row('/api/v4/order/kill-switch/status', ['market'], ['killSwitchTimer']),

  stopLimit: row('/api/v4/order/stop_limit', ['market', 'side', 'amount', 'price', 'activationPrice', 'clientOrderId', 'bboRole', 'stp'], ['order']),
  collateralOco: row(
    '/api/v4/order/collateral/oco',
    ['market', 'side', 'amount', 'price', 'activationPrice', 'stopLimitPrice', 'clientOrderId', 'reduceOnly', 'positionSide', 'stp'],
    ['oco', 'ocoLeg'],
  ),
  cancelOrder: row('/api/v4/order/cancel', ['market', 'orderId', 'clientOrderId'], ['order']),
  cancelOco: row('/api/v4/order/oco-cancel', ['market', 'orderId', 'clientOrderId'], ['oco', 'ocoListLeg']),
  killSwitch: row('/api/v4/order/kill-switch', ['market', 'timeout', 'types'], ['killSwitchTimer']),
  limitOrder: row('/api/v4/order/new', ['market', 'side', 'amount', 'price', 'clientOrderId', 'postOnly', 'ioc'], ['order']),
};

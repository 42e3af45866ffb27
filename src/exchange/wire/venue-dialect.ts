import { SHARED_SHAPES, sameNames } from './answer-shapes';
import { requestNames as fields, type Dialect } from './dialect';

/**
 * The venue dialect: the exchange's own documentation (github.com/whitebit-exchange/docs, the
 * OpenAPI files under openapi/) and the clients written against it. The default, because money runs
 * on the real venue. Ids are camelCase; the fields the documentation writes in snake_case stay so
 * (`activation_price`, `stop_limit_price`; the OCO legs' `post_only`, `activation_condition`).
 */
const SPELLING = { activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price' } as const;
const f = (...names: readonly string[]) => fields(SPELLING, ...names);

export const VENUE_DIALECT: Dialect = {
  name: 'venue',
  endpoints: {
    kline: { path: '/api/v1/public/kline', request: f('market', 'start', 'end', 'interval', 'limit'), answer: ['v1Envelope'] },
    ping: { path: '/api/v4/public/ping', request: f(), answer: [] },
    time: { path: '/api/v4/public/time', request: f(), answer: ['time'] },
    markets: { path: '/api/v4/public/markets', request: f(), answer: ['market'] },
    assets: { path: '/api/v4/public/assets', request: f(), answer: [] },
    tickers: { path: '/api/v4/public/ticker', request: f(), answer: [] },
    tickerV1: { path: '/api/v1/public/ticker', request: f('market'), answer: ['v1Envelope'] },

    tradeBalance: { path: '/api/v4/trade-account/balance', request: f('ticker'), answer: ['balanceEntry'] },
    mainBalance: { path: '/api/v4/main-account/balance', request: f('ticker'), answer: ['mainBalanceEntry'] },
    codes: { path: '/api/v4/main-account/codes/my', request: f('limit', 'offset'), answer: ['codesPage', 'code'] },
    miningAccounts: { path: '/api/v4/mining/accounts', request: f('name'), answer: ['miningPage', 'miningAccount'] },
    jwt: { path: '/api/v4/jwt', request: f(), answer: ['jwt', 'jwtData'] },
    websocketToken: { path: '/api/v4/profile/websocket_token', request: f(), answer: ['websocketToken'] },

    activeOrders: { path: '/api/v4/orders', request: f('market', 'orderId', 'clientOrderId', 'limit', 'offset'), answer: ['order'] },
    ocoList: { path: '/api/v4/oco-orders', request: f('market', 'limit', 'offset'), answer: ['oco', 'ocoListLeg'] },
    orderHistory: {
      path: '/api/v4/trade-account/order/history',
      request: f('market', 'orderId', 'clientOrderId', 'status', 'startDate', 'endDate', 'limit', 'offset'),
      answer: ['historyOrder'],
    },
    executedDeals: {
      path: '/api/v4/trade-account/executed-history',
      request: f('market', 'clientOrderId', 'startDate', 'endDate', 'limit', 'offset'),
      answer: ['deal'],
    },
    killSwitchStatus: { path: '/api/v4/order/kill-switch/status', request: f('market'), answer: ['killSwitchTimer'] },

    stopLimit: {
      path: '/api/v4/order/stop_limit',
      request: f('market', 'side', 'amount', 'price', 'activationPrice', 'clientOrderId', 'bboRole', 'stp'),
      answer: ['order'],
    },
    collateralOco: {
      path: '/api/v4/order/collateral/oco',
      request: f('market', 'side', 'amount', 'price', 'activationPrice', 'stopLimitPrice', 'clientOrderId', 'reduceOnly', 'positionSide', 'stp'),
      answer: ['oco', 'ocoLeg'],
    },
    cancelOrder: { path: '/api/v4/order/cancel', request: f('market', 'orderId', 'clientOrderId'), answer: ['order'] },
    cancelOco: { path: '/api/v4/order/oco-cancel', request: f('market', 'orderId', 'clientOrderId'), answer: ['oco', 'ocoListLeg'] },
    killSwitch: { path: '/api/v4/order/kill-switch', request: f('market', 'timeout', 'types'), answer: ['killSwitchTimer'] },
    limitOrder: { path: '/api/v4/order/new', request: f('market', 'side', 'amount', 'price', 'clientOrderId', 'postOnly', 'ioc'), answer: ['order'] },
  },
  shapes: {
    ...SHARED_SHAPES,
    order: sameNames('order', { activationPrice: 'activation_price' }),
    ocoLeg: sameNames('ocoLeg', {
      postOnly: 'post_only', activationPrice: 'activation_price', activationCondition: 'activation_condition',
    }),
    // The list and cancel legs carry reduceOnly but no fee ratios (the create legs do).
    ocoListLeg: sameNames('ocoListLeg', {
      postOnly: 'post_only', activationPrice: 'activation_price', activationCondition: 'activation_condition',
      takerFee: null, makerFee: null,
    }),
  },
};

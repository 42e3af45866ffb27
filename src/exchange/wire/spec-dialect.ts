import { SHARED_SHAPES, sameNames } from './answer-shapes';
import { requestNames as fields, type Dialect } from './dialect';

/**
 * The spec dialect: the spellings of exchange-api.md. Order fields are snake_case (`client_order_id`,
 * `order_id`, `deal_money`, `deal_stock`, `deal_fee`) with the few camelCase ones the spec lists
 * (`postOnly`, `activationCondition`); the active-OCO list is `/api/v4/orders/oco`; the main balance
 * takes no parameters. Where the spec is silent (cancel, active orders, OCO create and cancel) its
 * snake_case ids are used; history, deals and kill-switch answers follow the venue documentation.
 */
const SPELLING = {
  activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price', clientOrderId: 'client_order_id', orderId: 'order_id',
} as const;
const f = (...names: readonly string[]) => fields(SPELLING, ...names);

export const SPEC_DIALECT: Dialect = {
  name: 'spec',
  endpoints: {
    kline: { path: '/api/v1/public/kline', request: f('market', 'start', 'end', 'interval', 'limit'), answer: ['v1Envelope'] },
    ping: { path: '/api/v4/public/ping', request: f(), answer: [] },
    time: { path: '/api/v4/public/time', request: f(), answer: ['time'] },
    markets: { path: '/api/v4/public/markets', request: f(), answer: ['market'] },
    assets: { path: '/api/v4/public/assets', request: f(), answer: [] },
    tickers: { path: '/api/v4/public/ticker', request: f(), answer: [] },
    tickerV1: { path: '/api/v1/public/ticker', request: f('market'), answer: ['v1Envelope'] },

    tradeBalance: { path: '/api/v4/trade-account/balance', request: f('ticker'), answer: ['balanceEntry'] },
    mainBalance: { path: '/api/v4/main-account/balance', request: f(), answer: ['mainBalanceEntry'] },
    codes: { path: '/api/v4/main-account/codes/my', request: f('limit', 'offset'), answer: ['codesPage', 'code'] },
    miningAccounts: { path: '/api/v4/mining/accounts', request: f('name'), answer: ['miningPage', 'miningAccount'] },
    jwt: { path: '/api/v4/jwt', request: f(), answer: ['jwt', 'jwtData'] },
    websocketToken: { path: '/api/v4/profile/websocket_token', request: f(), answer: ['websocketToken'] },

    activeOrders: { path: '/api/v4/orders', request: f('market', 'orderId', 'clientOrderId', 'limit', 'offset'), answer: ['order'] },
    ocoList: { path: '/api/v4/orders/oco', request: f('market', 'limit', 'offset'), answer: ['oco', 'ocoListLeg'] },
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
    order: sameNames('order', {
      orderId: 'order_id', clientOrderId: 'client_order_id', dealMoney: 'deal_money', dealStock: 'deal_stock', dealFee: 'deal_fee',
      activationPrice: 'activation_price',
    }),
    ocoLeg: sameNames('ocoLeg', {
      orderId: 'order_id', clientOrderId: 'client_order_id', dealMoney: 'deal_money', dealStock: 'deal_stock', dealFee: 'deal_fee',
      postOnly: 'post_only', activationPrice: 'activation_price', activationCondition: 'activation_condition',
    }),
    // The spec's OCO list item: fee ratios, no reduceOnly.
    ocoListLeg: sameNames('ocoListLeg', {
      orderId: 'order_id', clientOrderId: 'client_order_id', dealMoney: 'deal_money', dealStock: 'deal_stock', dealFee: 'deal_fee',
      postOnly: 'post_only', activationPrice: 'activation_price', activationCondition: 'activation_condition', reduceOnly: null,
    }),
  },
};

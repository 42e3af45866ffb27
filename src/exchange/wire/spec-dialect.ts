import { sameNames } from './answer-shapes';
import { dialectOf, type Dialect } from './dialect';

/**
 * The spec dialect: the spellings of exchange-api.md. Order fields are snake_case (`client_order_id`,
 * `order_id`, `deal_money`, `deal_stock`, `deal_fee`) with the few camelCase ones the spec lists
 * (`postOnly`, `activationCondition`); the active-OCO list is `/api/v4/orders/oco`; the main balance
 * takes no parameters. Where the spec is silent (cancel, active orders, OCO create and cancel) its
 * snake_case ids are used; history, deals and kill-switch answers follow the venue documentation.
 */
export const SPEC_DIALECT: Dialect = dialectOf({
  name: 'spec',
  spelling: { activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price', clientOrderId: 'client_order_id', orderId: 'order_id' },
  paths: { ocoList: '/api/v4/orders/oco' },
  withoutFields: { mainBalance: ['ticker'] },
  shapes: {
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
});

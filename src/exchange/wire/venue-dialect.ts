import { sameNames } from './answer-shapes';
import { dialectOf, type Dialect } from './dialect';

/**
 * The venue dialect: the exchange's own documentation (github.com/whitebit-exchange/docs, the
 * OpenAPI files under openapi/) and the clients written against it. The default, because money runs
 * on the real venue. Ids are camelCase; the fields the documentation writes in snake_case stay so
 * (`activation_price`, `stop_limit_price`; the OCO legs' `post_only`, `activation_condition`).
 */
export const VENUE_DIALECT: Dialect = dialectOf({
  name: 'venue',
  spelling: { activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price' },
  shapes: {
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
});

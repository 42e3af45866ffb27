import { WIRE_ENDPOINTS, type WireEndpointId } from '../../../src/exchange/wire/endpoints';
import { ANSWER_SHAPES, type ShapeId } from '../../../src/exchange/wire/answer-shapes';
import { DIALECTS } from '../../../src/exchange/wire/dialects';
import { requestCodec } from '../../../src/exchange/wire/request-codec';

const ENDPOINT_IDS = Object.keys(WIRE_ENDPOINTS) as WireEndpointId[];

describe('the dialects differ exactly where the sources do', () => {
  const { venue, spec } = DIALECTS;
  test('paths: only the active-OCO list', () => {
    const differ = ENDPOINT_IDS.filter((id) => venue.endpoints[id].path !== spec.endpoints[id].path);
    expect(differ).toEqual(['ocoList']);
    expect(venue.endpoints.ocoList.path).toBe('/api/v4/oco-orders');
    expect(spec.endpoints.ocoList.path).toBe('/api/v4/orders/oco');
  });
  test('request ids: camelCase on the venue, snake_case in the spec; documented snake fields kept', () => {
    expect(venue.endpoints.stopLimit.request).toMatchObject({ clientOrderId: 'clientOrderId', activationPrice: 'activation_price' });
    expect(spec.endpoints.stopLimit.request).toMatchObject({ clientOrderId: 'client_order_id', activationPrice: 'activation_price' });
    expect(venue.endpoints.collateralOco.request).toMatchObject({ stopLimitPrice: 'stop_limit_price', clientOrderId: 'clientOrderId' });
    expect(venue.endpoints.cancelOrder.request['orderId']).toBe('orderId');
    expect(spec.endpoints.cancelOrder.request['orderId']).toBe('order_id');
    // The venue's main balance takes a ticker; the spec's takes nothing.
    expect(venue.endpoints.mainBalance.request).toEqual({ ticker: 'ticker' });
    expect(spec.endpoints.mainBalance.request).toEqual({});
  });
  test('answers: order and OCO-leg fields; the venue\'s list legs carry reduceOnly, not fee ratios', () => {
    expect(venue.shapes.order).toMatchObject({ orderId: 'orderId', clientOrderId: 'clientOrderId', dealMoney: 'dealMoney', dealFee: 'dealFee', activationPrice: 'activation_price', activationCondition: 'activationCondition' });
    expect(spec.shapes.order).toMatchObject({ orderId: 'order_id', clientOrderId: 'client_order_id', dealMoney: 'deal_money', dealFee: 'deal_fee', postOnly: 'postOnly' });
    expect(venue.shapes.ocoLeg).toMatchObject({ orderId: 'orderId', postOnly: 'post_only', activationCondition: 'activation_condition' });
    expect(spec.shapes.ocoLeg).toMatchObject({ orderId: 'order_id', postOnly: 'post_only', activationCondition: 'activation_condition' });
    expect(venue.shapes.ocoListLeg).toMatchObject({ takerFee: null, makerFee: null, reduceOnly: 'reduceOnly', orderId: 'orderId' });
    expect(spec.shapes.ocoListLeg).toMatchObject({ takerFee: 'takerFee', makerFee: 'makerFee', reduceOnly: null, orderId: 'order_id' });
    for (const shape of Object.keys(ANSWER_SHAPES) as ShapeId[]) {
      if (!['order', 'ocoLeg', 'ocoListLeg'].includes(shape)) expect([shape, venue.shapes[shape]]).toEqual([shape, spec.shapes[shape]]);
    }
  });
});

describe('the request codec', () => {
  const venue = requestCodec(DIALECTS.venue);
  const spec = requestCodec(DIALECTS.spec);
  const order = { market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activationPrice: '29100', clientOrderId: 'c-1' };
  test('encodes canonical parameters in the dialect\'s names, checked', () => {
    expect(venue.encode('stopLimit', order)).toEqual({ ok: true, value: { market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activation_price: '29100', clientOrderId: 'c-1' } });
    expect(spec.encode('cancelOrder', { market: 'BTC_USDT', orderId: 5 })).toEqual({ ok: true, value: { market: 'BTC_USDT', order_id: 5 } });
    expect(venue.encode('stopLimit', { ...order, side: 'up' })).toEqual({ ok: false, fieldErrors: { side: ["Side field should contain only 'buy' or 'sell' values."] } });
    expect(spec.encode('stopLimit', { ...order, clientOrderId: 'bad id' }).ok).toBe(false);
    expect(Object.keys((spec.encode('stopLimit', { ...order, clientOrderId: 'bad id' }) as { fieldErrors: object }).fieldErrors)).toEqual(['client_order_id']);
    // A field the rules know but this dialect does not send.
    expect(spec.encode('mainBalance', { ticker: 'BTC' })).toEqual({ ok: false, fieldErrors: { ticker: ['The spec dialect does not send ticker to this endpoint.'] } });
  });
  test('decodes a wire body, skipping the envelope; errors are named by their wire field', () => {
    const body = { request: '/api/v4/order/stop_limit', nonce: '1', nonceWindow: true, market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activation_price: '29100', clientOrderId: 'c-1' };
    expect(venue.decode('stopLimit', body)).toEqual({ ok: true, value: order });
    const { activation_price: _omit, ...missing } = body;
    expect(venue.decode('stopLimit', missing)).toEqual({ ok: false, fieldErrors: { activation_price: ['Activation price field is required.'] } });
    expect(spec.decode('cancelOrder', { market: 'BTC_USDT' })).toEqual({ ok: false, fieldErrors: { order_id: ['The order id field is required when client order id is not present.'] } });
  });
  test('a field the dialect does not know is refused (naming it) or, on request, ignored as the live venue does', () => {
    const specBody = { market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activation_price: '29100', client_order_id: 'c-1' };
    const refused = venue.decode('stopLimit', specBody);
    expect(refused.ok).toBe(false);
    expect(Object.keys((refused as { fieldErrors: object }).fieldErrors)).toEqual(['client_order_id']);
    expect((refused as { fieldErrors: Record<string, string[]> }).fieldErrors['client_order_id']![0]).toMatch(/unknown to \/api\/v4\/order\/stop_limit in the venue dialect .*clientOrderId/);
    expect(venue.decode('stopLimit', specBody, 'ignore')).toEqual({ ok: true, value: { market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '29000', activationPrice: '29100' } });
    expect(spec.decode('mainBalance', { ticker: 'BTC' }).ok).toBe(false);
  });
});

import { DIALECTS } from '../../../src/exchange/wire/dialects';
import { requestCodec } from '../../../src/exchange/wire/request-codec';

describe('request codec', () => {
  const order = { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-s-1', stp: 'no' };

  test('an order the bot sends comes out checked, in the wire names of each dialect, in the table order', () => {
    const venue = requestCodec(DIALECTS.venue).encode('stopLimit', order);
    const spec = requestCodec(DIALECTS.spec).encode('stopLimit', order);
    expect(venue).toEqual({ ok: true, value: { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000', clientOrderId: 'tb-s-1', stp: 'no' } });
    expect(spec).toEqual({ ok: true, value: { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000', client_order_id: 'tb-s-1', stp: 'no' } });
    // Same key order whatever order the caller used: the signed bytes depend on it.
    const shuffled = Object.fromEntries(Object.entries(order).reverse());
    expect(JSON.stringify(requestCodec(DIALECTS.venue).encode('stopLimit', shuffled))).toBe(JSON.stringify(venue));
  });

  test('amounts given as numbers are normalised to plain decimal strings; an unknown field is named', () => {
    const encoded = requestCodec(DIALECTS.venue).encode('stopLimit', { ...order, amount: 0.001 });
    expect(encoded.ok && encoded.value['amount']).toBe('0.001');
    const refused = requestCodec(DIALECTS.venue).encode('stopLimit', { ...order, note: 'x' });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? undefined : Object.keys(refused.fieldErrors)).toEqual(['note']);
  });
});

import { Decimal } from '../../../src/domain/decimal';
import type { WireEndpointId } from '../../../src/exchange/wire/endpoints';
import { checkRequest } from '../../../src/exchange/wire/request-rules';

// The rules in canonical names (the dialects spell them on the wire: test/unit/exchange/dialects.test.ts).
const M = 'BTC_USDT';
const stopLimit = { market: M, side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000' };

function errors(endpoint: WireEndpointId, params: unknown): Record<string, string[]> {
  const r = checkRequest(endpoint, params);
  if (r.ok) throw new Error(`expected field errors, got ${JSON.stringify(r.value)}`);
  return r.fieldErrors;
}
function value(endpoint: WireEndpointId, params: unknown): Record<string, unknown> {
  const r = checkRequest(endpoint, params);
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.fieldErrors)}`);
  return r.value;
}

describe('kline query', () => {
  test('accepts the spec rules, query strings included', () => {
    expect(value('kline', { market: M, interval: '1h', start: '100', end: '100', limit: '1440' })).toEqual({ market: M, interval: '1h', start: 100, end: 100, limit: 1440 });
  });
  test('limit 1..1440 integer', () => {
    expect(errors('kline', { market: M, limit: 1441 })).toEqual({ limit: ['The limit may not be greater than 1440.'] });
    expect(errors('kline', { market: M, limit: 0 })).toEqual({ limit: ['The limit must be at least 1.'] });
    expect(errors('kline', { market: M, limit: 1.5 })).toEqual({ limit: ['The limit must be an integer.'] });
  });
  test('start must not be greater than end', () => {
    expect(errors('kline', { market: M, start: 200, end: 100 })).toEqual({ end: ['End field must be greater then start.'] });
  });
  test('interval from the domain set', () => {
    expect(value('kline', { market: M, interval: '1M' })['interval']).toBe('1M');
    expect(Object.keys(errors('kline', { market: M, interval: '2m' }))).toEqual(['interval']);
  });
  test('market is required and has the <STOCK>_<MONEY> form', () => {
    expect(errors('kline', {})).toEqual({ market: ['Market field is required.'] });
    expect(errors('kline', { market: 'btcusdt' })).toEqual({ market: ['Market field format is invalid.'] });
    expect(errors('kline', { market: '' })).toEqual({ market: ['Market field should not be empty string.'] });
  });
});

describe('stop-limit body', () => {
  test('normalises amounts to plain decimal strings and integer strings to numbers', () => {
    const plain = value('stopLimit', { ...stopLimit, clientOrderId: 'tb-1.a_b', stp: 'cancel_old', bboRole: 1 });
    const loose = value('stopLimit', { market: M, side: 'buy', amount: 0.001, price: new Decimal('40000'), activationPrice: '41000', clientOrderId: 'tb-1.a_b', stp: 'cancel_old', bboRole: '1' });
    expect(plain).toEqual({ ...stopLimit, clientOrderId: 'tb-1.a_b', bboRole: 1, stp: 'cancel_old' });
    expect(loose).toEqual(plain);
  });
  test('side, required activation price, positive amounts', () => {
    expect(errors('stopLimit', { ...stopLimit, side: 'long' })).toEqual({ side: ["Side field should contain only 'buy' or 'sell' values."] });
    const { activationPrice: _omit, ...noActivation } = stopLimit;
    expect(errors('stopLimit', noActivation)).toEqual({ activationPrice: ['Activation price field is required.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: '0' })).toEqual({ amount: ['Amount should be greater than 0.'] });
    expect(errors('stopLimit', { ...stopLimit, price: '-1' })).toEqual({ price: ['Price should be greater than 0.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: '1e-3' })).toEqual({ amount: ['Amount field should be numeric string or number.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: Number.NaN })).toEqual({ amount: ['Amount field should be numeric string or number.'] });
    expect(value('stopLimit', { ...stopLimit, amount: 1e-7 })['amount']).toBe('0.0000001');
  });
  test('client order id: charset and length', () => {
    expect(errors('stopLimit', { ...stopLimit, clientOrderId: 'has space' })).toEqual({ clientOrderId: ['Client order id field should contain only letters, digits, dashes, dots and underscores.'] });
    expect(errors('stopLimit', { ...stopLimit, clientOrderId: 'x'.repeat(65) })).toEqual({ clientOrderId: ['Client order id may not be greater than 64 characters.'] });
  });
  test('stp: the documented abbreviations and the legacy long forms; bboRole 1 or 2', () => {
    for (const stp of ['no', 'cb', 'cn', 'co', 'cancel_both', 'cancel_new', 'cancel_old']) expect(value('stopLimit', { ...stopLimit, stp })['stp']).toBe(stp);
    expect(Object.keys(errors('stopLimit', { ...stopLimit, stp: 'yes' }))).toEqual(['stp']);
    expect(Object.keys(errors('stopLimit', { ...stopLimit, bboRole: 3 }))).toEqual(['bboRole']);
  });
  test('a field the endpoint does not have is an error, never dropped (wire spellings and envelope included)', () => {
    expect(errors('stopLimit', { ...stopLimit, foo: 1 })).toEqual({ foo: ['The foo field is not a parameter of this endpoint.'] });
    expect(Object.keys(errors('stopLimit', { ...stopLimit, activation_price: '41000' }))).toEqual(['activation_price']);
    expect(Object.keys(errors('stopLimit', { ...stopLimit, nonce: '1' }))).toEqual(['nonce']);
  });
});

describe('collateral OCO body', () => {
  test('needs stopLimitPrice', () => {
    expect(value('collateralOco', { ...stopLimit, stopLimitPrice: '42000', clientOrderId: 'a' })).toEqual({ ...stopLimit, stopLimitPrice: '42000', clientOrderId: 'a' });
    expect(errors('collateralOco', stopLimit)).toEqual({ stopLimitPrice: ['Stop limit price field is required.'] });
  });
});

describe('cancel: exactly one of order id / client order id', () => {
  test.each(['cancelOrder', 'cancelOco'] as const)('%s', (endpoint) => {
    expect(value(endpoint, { market: M, orderId: '117703764513' })).toEqual({ market: M, orderId: 117703764513 });
    expect(value(endpoint, { market: M, clientOrderId: 'abc' })).toEqual({ market: M, clientOrderId: 'abc' });
    expect(errors(endpoint, { market: M })).toEqual({ orderId: ['The order id field is required when client order id is not present.'] });
    expect(errors(endpoint, { market: M, orderId: 1, clientOrderId: 'a' })).toEqual({ orderId: ['Only one of order id and client order id may be given.'] });
    expect(Object.keys(errors(endpoint, { market: M, orderId: -3 }))).toEqual(['orderId']);
  });
});

describe('paging limits', () => {
  test('codes: limit 1..100, offset 0..10000', () => {
    expect(errors('codes', { limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(errors('codes', { offset: 10001 })).toEqual({ offset: ['The offset may not be greater than 10000.'] });
    expect(errors('codes', { offset: -1 })).toEqual({ offset: ['The offset must be at least 0.'] });
    expect(value('codes', { limit: 100, offset: 0 })).toEqual({ limit: 100, offset: 0 });
  });
  test('active orders and OCO lists: limit 1..100, offset up to 4294967295, market optional', () => {
    expect(errors('activeOrders', { limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(errors('ocoList', { market: M, limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(value('ocoList', { offset: 4_294_967_295 })).toEqual({ offset: 4_294_967_295 });
    expect(errors('activeOrders', { offset: 4_294_967_296 })).toEqual({ offset: ['The offset may not be greater than 4294967295.'] });
    expect(value('activeOrders', { market: M, clientOrderId: 'x' })).toEqual({ market: M, clientOrderId: 'x' });
  });
  test('history and deals: limit 1..500, startDate <= endDate', () => {
    expect(value('orderHistory', { limit: 500, status: 'FILLED', orderId: 5 })).toEqual({ orderId: 5, status: 'FILLED', limit: 500 });
    expect(errors('orderHistory', { limit: 501 })).toEqual({ limit: ['The limit may not be greater than 500.'] });
    expect(Object.keys(errors('orderHistory', { status: 'OPEN' }))).toEqual(['status']);
    expect(errors('executedDeals', { startDate: 10, endDate: 5 })).toEqual({ endDate: ['End date field must be greater then start date.'] });
  });
  test('mining name at most 255 characters', () => {
    expect(value('miningAccounts', { name: 'x'.repeat(255) })['name']).toHaveLength(255);
    expect(errors('miningAccounts', { name: 'x'.repeat(256) })).toEqual({ name: ['The name may not be greater than 255 characters.'] });
  });
});

describe('kill-switch', () => {
  test('timeout "5".."600" as a string, or null; key required', () => {
    expect(value('killSwitch', { market: M, timeout: '60', types: ['spot'] })).toEqual({ market: M, timeout: '60', types: ['spot'] });
    expect(value('killSwitch', { market: M, timeout: null })).toEqual({ market: M, timeout: null });
    expect(value('killSwitch', { market: M, timeout: 'null' })).toEqual({ market: M, timeout: null });
    expect(errors('killSwitch', { market: M })).toEqual({ timeout: ['Timeout field is required.'] });
    expect(errors('killSwitch', { market: M, timeout: 60 })).toEqual({ timeout: ['Timeout field should be a string.'] });
    expect(errors('killSwitch', { market: M, timeout: '4' })).toEqual({ timeout: ['Timeout should be at least 5.'] });
    expect(errors('killSwitch', { market: M, timeout: '601' })).toEqual({ timeout: ['Timeout may not be greater than 600.'] });
    expect(Object.keys(errors('killSwitch', { market: M, timeout: '60', types: ['swap'] }))).toEqual(['types']);
  });
});

describe('other endpoints', () => {
  test('parameterless endpoints accept nothing', () => {
    for (const e of ['ping', 'time', 'markets', 'jwt', 'websocketToken'] as const) {
      expect(value(e, {})).toEqual({});
      expect(value(e, undefined)).toEqual({});
      expect(Object.keys(errors(e, { ticker: 'BTC' }))).toEqual(['ticker']);
    }
  });
  test('balances: ticker optional; kill-switch status market optional', () => {
    expect(value('tradeBalance', { ticker: 'BTC' })).toEqual({ ticker: 'BTC' });
    expect(value('mainBalance', { ticker: 'BTC' })).toEqual({ ticker: 'BTC' });
    expect(Object.keys(errors('tradeBalance', { ticker: 5 }))).toEqual(['ticker']);
    expect(value('killSwitchStatus', {})).toEqual({});
  });
  test('transfer: ticker and amount, then `from` and `to` (different) or the older `method`', () => {
    expect(value('transfer', { ticker: 'USDT', amount: '100', from: 'main', to: 'collateral' })).toEqual({ ticker: 'USDT', amount: '100', from: 'main', to: 'collateral' });
    expect(value('transfer', { ticker: 'USDT', amount: 5, method: 'collateral-deposit' })).toEqual({ ticker: 'USDT', amount: '5', method: 'collateral-deposit' });
    expect(errors('transfer', { ticker: 'USDT', amount: '1' })).toEqual({ method: ['The method field is required.'] });
    expect(errors('transfer', { ticker: 'USDT', amount: '1', from: 'main' })).toEqual({ to: ['The to field is required when from is present.'] });
    expect(errors('transfer', { ticker: 'USDT', amount: '1', from: 'main', to: 'main' })).toEqual({ to: ['The to and from must be different.'] });
    expect(errors('transfer', { ticker: 'USDT', amount: '1', from: 'main', to: 'spot', method: 'deposit' })).toEqual({ method: ['Give either method or from and to, not both.'] });
    expect(errors('transfer', { ticker: 'USDT', amount: '1', from: 'trade', to: 'spot' })).toEqual({ from: ['The selected from is invalid.'] });
    expect(Object.keys(errors('transfer', { amount: '0', from: 'main', to: 'spot' })).sort()).toEqual(['amount', 'ticker']);
  });

  test('a non-object is refused', () => {
    expect(Object.keys(errors('stopLimit', [1]))).toEqual(['request']);
  });
});

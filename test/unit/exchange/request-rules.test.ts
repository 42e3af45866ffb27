import { Decimal } from '../../../src/domain/decimal';
import { checkRequest, toDocsSpelling } from '../../../src/exchange/request-rules';
import type { EndpointId } from '../../../src/exchange/http/endpoints';

const M = 'BTC_USDT';
const stopLimit = { market: M, side: 'buy', amount: '0.001', price: '40000', activation_price: '41000' };

function errors(endpoint: EndpointId, params: unknown): Record<string, string[]> {
  const r = checkRequest(endpoint, params);
  if (r.ok) throw new Error(`expected field errors, got ${JSON.stringify(r.value)}`);
  return r.fieldErrors;
}
function value(endpoint: EndpointId, params: unknown): Record<string, unknown> {
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
  test('normalises both spellings to snake_case and amounts to plain decimal strings', () => {
    const snake = value('stopLimit', { ...stopLimit, client_order_id: 'tb-1.a_b', stp: 'cancel_old', bboRole: 1 });
    const camel = value('stopLimit', { market: M, side: 'buy', amount: 0.001, price: new Decimal('40000'), activationPrice: '41000', clientOrderId: 'tb-1.a_b', stp: 'cancel_old', bboRole: '1' });
    expect(snake).toEqual({ ...stopLimit, client_order_id: 'tb-1.a_b', stp: 'cancel_old', bboRole: 1 });
    expect(camel).toEqual(snake);
  });
  test('side, required activation price, positive amounts', () => {
    expect(errors('stopLimit', { ...stopLimit, side: 'long' })).toEqual({ side: ["Side field should contain only 'buy' or 'sell' values."] });
    const { activation_price: _omit, ...noActivation } = stopLimit;
    expect(errors('stopLimit', noActivation)).toEqual({ activation_price: ['Activation price field is required.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: '0' })).toEqual({ amount: ['Amount should be greater than 0.'] });
    expect(errors('stopLimit', { ...stopLimit, price: '-1' })).toEqual({ price: ['Price should be greater than 0.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: '1e-3' })).toEqual({ amount: ['Amount field should be a numeric string or number.'] });
    expect(errors('stopLimit', { ...stopLimit, amount: Number.NaN })).toEqual({ amount: ['Amount field should be a numeric string or number.'] });
    expect(value('stopLimit', { ...stopLimit, amount: 1e-7 })['amount']).toBe('0.0000001');
  });
  test('errors are reported under the spelling the caller used', () => {
    const { activation_price: _omit, ...rest } = stopLimit;
    expect(errors('stopLimit', { ...rest, activationPrice: '0' })).toEqual({ activationPrice: ['Activation price should be greater than 0.'] });
    expect(errors('stopLimit', { ...stopLimit, clientOrderId: 'has space' })).toEqual({ clientOrderId: ['Client order id field should contain only letters, digits, dashes, dots and underscores.'] });
    expect(errors('stopLimit', { ...stopLimit, client_order_id: 'x'.repeat(65) })).toEqual({ client_order_id: ['Client order id may not be greater than 64 characters.'] });
    expect(errors('stopLimit', { ...stopLimit, activationPrice: '41000' })).toEqual({ activationPrice: ['The activation_price field may be given in one spelling only.'] });
  });
  test('stp values and bboRole', () => {
    for (const stp of ['no', 'cancel_both', 'cancel_new', 'cancel_old']) expect(value('stopLimit', { ...stopLimit, stp })['stp']).toBe(stp);
    expect(Object.keys(errors('stopLimit', { ...stopLimit, stp: 'cb' }))).toEqual(['stp']);
    expect(Object.keys(errors('stopLimit', { ...stopLimit, bboRole: 3 }))).toEqual(['bboRole']);
  });
  test('envelope fields are ignored and unknown fields dropped', () => {
    expect(value('stopLimit', { ...stopLimit, request: '/api/v4/order/stop_limit', nonce: '1', nonceWindow: true, foo: 1 })).toEqual(stopLimit);
  });
});

describe('collateral OCO body', () => {
  const oco = { ...stopLimit, stop_limit_price: '42000' };
  test('needs stop_limit_price in either spelling', () => {
    expect(value('collateralOco', { ...stopLimit, stopLimitPrice: '42000', clientOrderId: 'a' })).toEqual({ ...oco, client_order_id: 'a' });
    expect(errors('collateralOco', stopLimit)).toEqual({ stop_limit_price: ['Stop limit price field is required.'] });
  });
});

describe('cancel: exactly one of order id / client order id', () => {
  test.each(['cancelOrder', 'cancelOco'] as const)('%s', (endpoint) => {
    expect(value(endpoint, { market: M, orderId: '117703764513' })).toEqual({ market: M, order_id: 117703764513 });
    expect(value(endpoint, { market: M, client_order_id: 'abc' })).toEqual({ market: M, client_order_id: 'abc' });
    expect(errors(endpoint, { market: M })).toEqual({ order_id: ['The order id field is required when client order id is not present.'] });
    expect(errors(endpoint, { market: M, orderId: 1, clientOrderId: 'a' })).toEqual({ orderId: ['Only one of order id and client order id may be given.'] });
    expect(Object.keys(errors(endpoint, { market: M, order_id: -3 }))).toEqual(['order_id']);
  });
});

describe('paging limits', () => {
  test('codes: limit 1..100, offset 0..10000', () => {
    expect(errors('codes', { limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(errors('codes', { offset: 10001 })).toEqual({ offset: ['The offset may not be greater than 10000.'] });
    expect(errors('codes', { offset: -1 })).toEqual({ offset: ['The offset must be at least 0.'] });
    expect(value('codes', { limit: 100, offset: 0 })).toEqual({ limit: 100, offset: 0 });
  });
  test('active orders and OCO lists: limit 1..100', () => {
    expect(errors('activeOrders', { limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(errors('ocoList', { market: M, limit: 101 })).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(errors('ocoListAlt', {})).toEqual({ market: ['Market field is required.'] });
    expect(value('activeOrders', { market: M, clientOrderId: 'x' })).toEqual({ market: M, client_order_id: 'x' });
  });
  test('history and deals: limit 1..500, startDate <= endDate', () => {
    expect(value('orderHistory', { limit: 500, status: 'FILLED', orderId: 5 })).toEqual({ limit: 500, status: 'FILLED', order_id: 5 });
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
  test('parameterless endpoints accept nothing but the envelope', () => {
    for (const e of ['ping', 'time', 'markets', 'mainBalance', 'jwt', 'websocketToken'] as const) {
      expect(value(e, { request: '/x', nonce: '1', nonceWindow: true })).toEqual({});
      expect(value(e, undefined)).toEqual({});
    }
  });
  test('trade balance ticker and kill-switch status market are optional', () => {
    expect(value('tradeBalance', { ticker: 'BTC' })).toEqual({ ticker: 'BTC' });
    expect(Object.keys(errors('tradeBalance', { ticker: 5 }))).toEqual(['ticker']);
    expect(value('killSwitchStatus', {})).toEqual({});
  });
  test('a non-object is refused', () => {
    expect(Object.keys(errors('stopLimit', [1]))).toEqual(['request']);
  });
  test('toDocsSpelling renames ids to camelCase and keeps the documented snake fields', () => {
    expect(toDocsSpelling({ client_order_id: 'a', order_id: 1, activation_price: '2', stop_limit_price: '3' })).toEqual({ clientOrderId: 'a', orderId: 1, activation_price: '2', stop_limit_price: '3' });
  });
});

import { Decimal } from '../../../src/domain/decimal';
import type { EndpointId } from '../../../src/exchange/http/endpoints';
import { checkRequest, checkWithSchema } from '../../../src/exchange/request-rules';
import { fastCheck } from '../../../src/exchange/request-rules-fast';

/**
 * The hand-written fast path must agree with the zod schemas: whatever it accepts, the schema
 * accepts with the same value (same keys in the same order, so the same signed bytes), and
 * checkRequest (fast path first) answers exactly like the schema alone on every input, errors
 * included. Inputs are drawn from per-field candidates, valid and invalid, in both spellings.
 */
const U = undefined;
const decimals = ['0.001', '40000', ' 1.5 ', '.5', '5.', '0', '0.000', '-1', '1e-3', '', 'abc', 0.001, 40000, new Decimal('2.5'), null, U];
const markets = ['BTC_USDT', 'ETH_BTC', 'btc_usdt', 'BTCUSDT', '', 'A'.repeat(21) + '_USDT', 42, null, U];
const ids = ['tb-1.a_b', 'x', 'a'.repeat(64), 'a'.repeat(65), 'bad id', '', 7, null, U];
const ints = [1, 2, 100, 101, 0, -1, 1.5, '5', '-3', 'x', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.NaN, null, U];

const FIELDS: Partial<Record<EndpointId, Record<string, readonly unknown[]>>> = {
  stopLimit: {
    market: markets, side: ['buy', 'sell', 'long', 1, U], amount: decimals, price: decimals,
    activation_price: decimals, activationPrice: [U, ...decimals], client_order_id: ids, clientOrderId: [U, ...ids],
    bboRole: [1, 2, 3, '1', 'x', null, U], stp: ['no', 'cancel_both', 'cancel_new', 'cancel_old', 'yes', U],
    nonce: [5, U], note: ['ignored', U],
  },
  collateralOco: {
    market: markets, side: ['buy', 'sell', 'x', U], amount: decimals, price: decimals, activation_price: decimals,
    stop_limit_price: decimals, stopLimitPrice: [U, ...decimals], clientOrderId: [U, ...ids], reduceOnly: [true, false, 'true', U],
    positionSide: ['LONG', 'SHORT', 'BOTH', 'long', U], stp: ['no', 'bad', U],
  },
  cancelOrder: { market: markets, order_id: ints, orderId: [U, ...ints], client_order_id: [U, ...ids], clientOrderId: [U, ...ids], request: ['/x', U] },
  cancelOco: { market: markets, order_id: ints, client_order_id: [U, ...ids] },
  activeOrders: { market: markets, orderId: ints, client_order_id: ids, limit: ints, offset: [0, 10_000, 10_001, -1, 5, '5', U] },
};

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mostly-valid inputs (each field its first candidate with high odds; aliases absent) so both accept and refuse paths are common. */
function draw(fields: Record<string, readonly unknown[]>, random: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Random key order: the value's key order must not depend on the caller's.
  const keys = Object.keys(fields).sort(() => random() - 0.5);
  for (const key of keys) {
    const candidates = fields[key]!;
    const pick = random() < 0.85 ? candidates[0] : candidates[Math.floor(random() * candidates.length)];
    if (pick !== U || random() < 0.5) out[key] = pick;
  }
  return out;
}

describe('fast request checks agree with the zod schemas', () => {
  test.each(Object.keys(FIELDS) as EndpointId[])('%s', (endpoint) => {
    const random = rng(12345);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      const params = draw(FIELDS[endpoint]!, random);
      const slow = checkWithSchema(endpoint, params);
      const fast = fastCheck(endpoint, params);
      if (fast !== undefined) {
        accepted++;
        expect(slow).toEqual({ ok: true, value: fast });
        expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.ok ? slow.value : null));
      }
      if (!slow.ok) refused++;
      expect(checkRequest(endpoint, params)).toEqual(slow);
    }
    // Both outcomes were exercised many times.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });

  test('the orders the bot sends take the fast path', () => {
    const order = { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000', client_order_id: 'tb-s-1', stp: 'no' };
    expect(fastCheck('stopLimit', order)).toEqual(order);
    expect(fastCheck('cancelOrder', { market: 'BTC_USDT', clientOrderId: 'tb-s-1' })).toEqual({ market: 'BTC_USDT', client_order_id: 'tb-s-1' });
    expect(fastCheck('activeOrders', { market: 'BTC_USDT', limit: 100, offset: 0 })).toEqual({ market: 'BTC_USDT', limit: 100, offset: 0 });
  });

  test('non-plain objects, arrays and other endpoints go to the schema', () => {
    expect(fastCheck('stopLimit', [])).toBeUndefined();
    expect(fastCheck('stopLimit', new (class { market = 'BTC_USDT'; })())).toBeUndefined();
    expect(fastCheck('kline', { market: 'BTC_USDT' })).toBeUndefined();
    expect(fastCheck('stopLimit', { market: 'BTC_USDT', side: 'buy', amount: '1', price: '1', activation_price: '1', activationPrice: '1' })).toBeUndefined();
  });
});

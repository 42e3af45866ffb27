import { Decimal } from '../../../src/domain/decimal';
import { WIRE_ENDPOINTS, type WireEndpointId } from '../../../src/exchange/http/endpoints';
import { REQUEST_RULES, checkRequest, checkWithSchema } from '../../../src/exchange/request-rules';
import { compileFastPath } from '../../../src/exchange/request-rules-fast';
import { DIALECTS } from '../../../src/exchange/wire/dialects';
import { requestCodec } from '../../../src/exchange/wire/request-codec';

/**
 * The fast path is compiled from the same table entries as the zod schemas and must agree with
 * them: whatever it accepts, the schema accepts with the same value (same keys in the same order, so
 * the same signed bytes), and checkRequest (fast path first) answers exactly like the schema alone
 * on every input, errors included. Inputs are drawn from per-field candidates, valid and invalid.
 */
const U = undefined;
const decimals = ['0.001', '40000', ' 1.5 ', '.5', '5.', '0', '0.000', '-1', '1e-3', '', 'abc', 0.001, 40000, new Decimal('2.5'), null, U];
const markets = ['BTC_USDT', 'ETH_BTC', 'btc_usdt', 'BTCUSDT', '', 'A'.repeat(21) + '_USDT', 42, null, U];
const ids = ['tb-1.a_b', 'x', 'a'.repeat(64), 'a'.repeat(65), 'bad id', '', 7, null, U];
const ints = [1, 2, 100, 101, 0, -1, 1.5, '5', '-3', 'x', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.NaN, null, U];
const dates = [100, 200, 0, -5, '150', 1.5, U];

const FIELDS: Partial<Record<WireEndpointId, Record<string, readonly unknown[]>>> = {
  stopLimit: {
    market: markets, side: ['buy', 'sell', 'long', 1, U], amount: decimals, price: decimals, activationPrice: decimals,
    clientOrderId: ids, bboRole: [1, 2, 3, '1', 'x', null, U], stp: ['no', 'cb', 'cancel_old', 'yes', U],
    activation_price: [U, '1'], note: [U, 'extra'],
  },
  collateralOco: {
    market: markets, side: ['buy', 'sell', 'x', U], amount: decimals, price: decimals, activationPrice: decimals,
    stopLimitPrice: decimals, clientOrderId: [U, ...ids], reduceOnly: [true, false, 'true', U],
    positionSide: ['LONG', 'SHORT', 'BOTH', 'long', U], stp: ['no', 'bad', U],
  },
  cancelOrder: { market: markets, orderId: ints, clientOrderId: [U, ...ids], request: [U, '/x'] },
  cancelOco: { market: markets, orderId: ints, clientOrderId: [U, ...ids] },
  activeOrders: { market: markets, orderId: ints, clientOrderId: ids, limit: ints, offset: [0, 10_000, 4_294_967_296, -1, 5, '5', U] },
  orderHistory: { market: markets, orderId: ints, startDate: dates, endDate: dates, status: ['ALL', 'OPEN', U], limit: [1, 500, 501, U] },
  tradeBalance: { ticker: ['BTC', 'btc', 5, U] },
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

/** Mostly-valid inputs (each field its first candidate with high odds) so both accept and refuse paths are common. */
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

const identity = (endpoint: WireEndpointId) => Object.fromEntries(Object.keys(REQUEST_RULES[endpoint].fields).map((f) => [f, f]));

describe('the fast path compiled from the rule table agrees with the zod schemas', () => {
  test.each(Object.keys(FIELDS) as WireEndpointId[])('%s', (endpoint) => {
    const fastPath = compileFastPath(REQUEST_RULES[endpoint], identity(endpoint))!;
    expect(fastPath).toBeDefined();
    const random = rng(12345);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 2000; i++) {
      const params = draw(FIELDS[endpoint]!, random);
      const slow = checkWithSchema(endpoint, params);
      const fast = fastPath(params);
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

  test.each(['venue', 'spec'] as const)('%s dialect: the fast wire object equals the schema value renamed', (name) => {
    const codec = requestCodec(DIALECTS[name]);
    const random = rng(777);
    for (const endpoint of Object.keys(FIELDS) as WireEndpointId[]) {
      const fastPath = compileFastPath(REQUEST_RULES[endpoint], DIALECTS[name].endpoints[endpoint].request);
      for (let i = 0; i < 500; i++) {
        const params = draw(FIELDS[endpoint]!, random);
        const fast = fastPath?.(params);
        const encoded = codec.encode(endpoint, params);
        if (fast !== undefined) expect(JSON.stringify(encoded.ok ? encoded.value : null)).toBe(JSON.stringify(fast));
      }
    }
  });

  test('every endpoint whose rules all have a fast form gets a fast path; the kill-switch goes through zod', () => {
    const withFast = (Object.keys(WIRE_ENDPOINTS) as WireEndpointId[]).filter((e) => compileFastPath(REQUEST_RULES[e], identity(e)) !== undefined);
    expect(withFast).toEqual(expect.arrayContaining(['stopLimit', 'collateralOco', 'cancelOrder', 'cancelOco', 'activeOrders', 'ocoList', 'tradeBalance']));
    expect(withFast).not.toContain('killSwitch');
  });

  test('the orders the bot sends take the fast path, straight into wire names', () => {
    const venue = compileFastPath(REQUEST_RULES.stopLimit, DIALECTS.venue.endpoints.stopLimit.request)!;
    const spec = compileFastPath(REQUEST_RULES.stopLimit, DIALECTS.spec.endpoints.stopLimit.request)!;
    const order = { market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000', clientOrderId: 'tb-s-1', stp: 'no' };
    expect(venue(order)).toEqual({ market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000', clientOrderId: 'tb-s-1', stp: 'no' });
    expect(spec(order)).toEqual({ market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000', client_order_id: 'tb-s-1', stp: 'no' });
  });

  test('non-plain objects, arrays and unknown fields go to the schema', () => {
    const fastPath = compileFastPath(REQUEST_RULES.stopLimit, identity('stopLimit'))!;
    expect(fastPath([])).toBeUndefined();
    expect(fastPath(new (class { market = 'BTC_USDT'; })())).toBeUndefined();
    expect(fastPath({ market: 'BTC_USDT', side: 'buy', amount: '1', price: '1', activationPrice: '1', activation_price: '1' })).toBeUndefined();
  });
});

import DecimalJs from 'decimal.js';
import { Decimal } from '../../../src/domain/decimal';
import { fastParseBatch, validateIntents } from '../../../src/strategy/intent-validation';

const markets = new Set(['BTC_USDT']);
const d = (v: string | number): Decimal => new Decimal(v);
const stop = { kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: d('0.01'), price: d('101'), activationPrice: d('100') };
const oco = { kind: 'oco', market: 'BTC_USDT', side: 'sell', amount: d('0.01'), price: d('110'), activationPrice: d('95'), stopLimitPrice: d('94') };
const cancel = { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'tb-x-1' };

describe('intent validation: the hand-written fast path and zod agree', () => {
  test('common shapes are accepted by the fast path, as copies equal to the input', () => {
    const batch = [{ ...stop, purpose: 'entry', tag: 'a' }, { ...oco, tag: 'b' }, cancel];
    const fast = fastParseBatch(batch);
    expect(fast).toEqual(batch);
    expect(fast?.[0]).not.toBe(batch[0]);
    expect(validateIntents(batch, markets)).toEqual({ ok: true, intents: batch });
  });

  test.each([
    ['a float price', { ...stop, price: 100 }],
    ['a string amount', { ...stop, amount: '1' }],
    ['a zero amount', { ...stop, amount: d(0) }],
    ['a negative activation', { ...stop, activationPrice: d(-1) }],
    ['an infinite price', { ...stop, price: d(Infinity) }],
    ['a NaN amount', { ...stop, amount: d(NaN) }],
    ['a missing field', { kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: d(1), price: d(1) }],
    ['an unknown field', { ...stop, leverage: 5 }],
    ['an unknown kind', { ...stop, kind: 'market' }],
    ['a bad side', { ...stop, side: 'long' }],
    ['a bad market name', { ...stop, market: 'btc-usdt' }],
    ['a bad tag', { ...stop, tag: 'has space' }],
    ['a bad purpose', { ...stop, purpose: 'hedge' }],
    ['an oco take-profit below its stop (sell)', { ...oco, price: d('90') }],
    ['an oco without stopLimitPrice', { ...oco, stopLimitPrice: undefined }],
    ['a cancel with a bad id', { ...cancel, clientOrderId: 'a b' }],
    ['null', null],
    ['an array', [stop]],
  ])('%s: the fast path declines and zod refuses', (_label, intent) => {
    expect(fastParseBatch([intent])).toBeUndefined();
    const r = validateIntents([intent], markets);
    expect(r.ok).toBe(false);
  });

  test('a Decimal of a decimal.js clone: both paths keep the same instance (clones share the prototype)', () => {
    const foreign = { ...stop, amount: new (DecimalJs.clone())('0.5') };
    const fast = fastParseBatch([foreign]);
    const r = validateIntents([foreign], markets);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.intents).toEqual(fast);
    expect((fast?.[0] as { amount: unknown }).amount).toBe(foreign.amount);
  });

  test('a decimal-like object that is not a Decimal instance goes to zod', () => {
    const lookalike = { ...stop, amount: { s: 1, e: 0, d: [5], constructor: Object } };
    expect(fastParseBatch([lookalike])).toBeUndefined();
  });

  test('optional keys present as undefined are accepted by both', () => {
    const intent = { ...stop, purpose: undefined, tag: undefined };
    expect(fastParseBatch([intent])).toEqual([intent]);
    expect(validateIntents([intent], markets).ok).toBe(true);
  });

  test('market membership and duplicate tags are checked after either path', () => {
    expect(validateIntents([{ ...stop, market: 'ETH_USDT' }], markets).ok).toBe(false);
    expect(validateIntents([stop, { ...stop }], markets).ok).toBe(false);
    expect(validateIntents([stop, { ...stop, tag: 'two' }], markets).ok).toBe(true);
  });
});

describe('a trailing stop from a guest', () => {
  const trailing = { kind: 'trailing_stop', market: 'BTC_USDT', side: 'sell', amount: d('0.01'), trail: d('100'), step: d('10'), limitOffset: d('0') };

  test('is accepted with Decimals and a zero limit offset', () => {
    expect(validateIntents([{ ...trailing, tag: 't' }], markets)).toEqual({ ok: true, intents: [{ ...trailing, tag: 't' }] });
  });

  test.each([
    ['a float trail', { ...trailing, trail: 100 }],
    ['a zero step', { ...trailing, step: d(0) }],
    ['a negative limit offset', { ...trailing, limitOffset: d(-1) }],
    ['a missing trail', { ...trailing, trail: undefined }],
    ['an unknown field', { ...trailing, activationPrice: d(1) }],
    ['a market it does not trade', { ...trailing, market: 'ETH_USDT' }],
  ])('%s is refused', (_label, intent) => {
    expect(validateIntents([intent], markets).ok).toBe(false);
  });
});

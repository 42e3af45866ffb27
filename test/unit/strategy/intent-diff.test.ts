import { Decimal } from '../../../src/domain/decimal';
import type { Intent } from '../../../src/domain/intent';
import { diffIntents } from '../../../src/strategy/versions/intent-diff';
import { ShadowRecord } from '../../../src/strategy/versions/shadow-record';

const stop = (price: string, over: Partial<Intent> = {}): Intent => ({
  kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: new Decimal('0.1'), price: new Decimal(price), activationPrice: new Decimal(price), ...over,
} as Intent);

test('the same identity with the same prices is no divergence (the same client order id); the rest are named', () => {
  expect(diffIntents([stop('100')], [stop('100.0')])).toEqual([]);
  expect(diffIntents([stop('100')], [stop('101')])).toEqual([expect.objectContaining({ kind: 'different', key: 'stop_limit BTC_USDT buy', live: expect.stringContaining('price=100'), shadow: expect.stringContaining('price=101') })]);
  expect(diffIntents([stop('100')], [stop('100', { amount: new Decimal('0.2') })])[0]?.kind).toBe('different');
  expect(diffIntents([stop('100')], []).map((d) => d.kind)).toEqual(['only_live']);
  expect(diffIntents([], [stop('100', { tag: 'x' })]).map((d) => [d.kind, d.key])).toEqual([['only_shadow', 'stop_limit BTC_USDT buy #x']]);
  // A tag is part of the identity, as in the client order id.
  expect(diffIntents([stop('100', { tag: 'a' })], [stop('100', { tag: 'b' })]).map((d) => d.kind).sort()).toEqual(['only_live', 'only_shadow']);
  const cancel: Intent = { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'tb-x-1' };
  expect(diffIntents([cancel], [cancel])).toEqual([]);
});

test('the record counts candles, divergent candles and clean candles in a row (a failure resets them)', () => {
  const r = new ShadowRecord();
  r.record('BTC_USDT', 60, [stop('1')], [stop('1')], false);
  r.record('BTC_USDT', 120, [stop('1')], [stop('2')], false);
  r.record('BTC_USDT', 180, [stop('1')], [], true);
  r.record('BTC_USDT', 240, [], [], false);
  const s = r.summary();
  expect(s).toMatchObject({ candles: 4, cleanCandles: 1, divergentCandles: 1, divergences: { only_live: 0, only_shadow: 0, different: 1 } });
  expect(s.recent.map((c) => c.candleTime)).toEqual([120]);
});

import { deriveClientOrderId, isValidClientOrderId } from '../../../src/core/client-order-id';

describe('deterministic client order ids', () => {
  const base = { strategy: 'SMA Cross (fast)', market: 'BTC_USDT', candleTime: 1_631_917_380, leg: 'o' as const };

  test('the same intent always yields the same id, within the exchange charset and length', () => {
    const id = deriveClientOrderId(base);
    expect(deriveClientOrderId({ ...base })).toBe(id);
    expect(isValidClientOrderId(id)).toBe(true);
    expect(id.length).toBeLessThanOrEqual(64);
  });

  test('every input changes the id', () => {
    const id = deriveClientOrderId(base);
    expect(deriveClientOrderId({ ...base, market: 'ETH_USDT' })).not.toBe(id);
    expect(deriveClientOrderId({ ...base, candleTime: base.candleTime + 60 })).not.toBe(id);
    expect(deriveClientOrderId({ ...base, leg: 'sl' })).not.toBe(id);
    expect(deriveClientOrderId({ ...base, tag: 'second' })).not.toBe(id);
    expect(deriveClientOrderId({ ...base, strategy: 'SMA Cross (slow)' })).not.toBe(id);
  });

  test('ids are stable across versions (SHA-256 of the inputs; journaled intents replay to the same id)', () => {
    expect(deriveClientOrderId(base)).toBe('tb-smacrossfast-a3c238a5-qzlnic-o');
    // Both OCO legs share the hash (the second call reuses it) and differ only in the leg suffix.
    expect(deriveClientOrderId({ ...base, leg: 'sl', tag: 'x' })).toBe('tb-smacrossfast-49c8dc90-qzlnic-sl');
    expect(deriveClientOrderId({ ...base, leg: 'tp', tag: 'x' })).toBe('tb-smacrossfast-49c8dc90-qzlnic-tp');
    expect(deriveClientOrderId(base)).toBe('tb-smacrossfast-a3c238a5-qzlnic-o');
  });

  test('charset rule', () => {
    expect(isValidClientOrderId('order-1.a_b')).toBe(true);
    expect(isValidClientOrderId('order 1')).toBe(false);
    expect(isValidClientOrderId('x'.repeat(65))).toBe(false);
    expect(isValidClientOrderId('')).toBe(false);
  });
});

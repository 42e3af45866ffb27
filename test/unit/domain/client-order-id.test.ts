import { deriveClientOrderId, isValidClientOrderId, minterOf, parseClientOrderId } from '../../../src/core/client-order-id';

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

describe('recognising our own ids (after the journal was lost)', () => {
  const strategies = [{ name: 'sma-cross', markets: ['BTC_USDT', 'ETH_USDT'] }, { name: 'SMA Cross', markets: ['BTC_USDT'] }, { name: 'rsi', markets: ['BTC_USDT'] }];

  it('parses what deriveClientOrderId makes and nothing else', () => {
    const id = deriveClientOrderId({ strategy: 'rsi', market: 'BTC_USDT', candleTime: 1_700_000_040, leg: 'sl', tag: 'x' });
    expect(parseClientOrderId(id)).toMatchObject({ slug: 'rsi', candleTime: 1_700_000_040, leg: 'sl' });
    for (const other of ['manual-1', 'tb-rsi-zz-1-o', 'tb-rsi-0123abcd-qzlnic-x', '', 'TB-rsi-0123abcd-qzlnic-o']) expect(parseClientOrderId(other)).toBeUndefined();
  });

  it('names the strategy that minted an id for the market; a shared slug is told apart by the hash', () => {
    const rsi = deriveClientOrderId({ strategy: 'rsi', market: 'BTC_USDT', candleTime: 120, leg: 'o', tag: 'second' });
    expect(minterOf(rsi, 'BTC_USDT', strategies)).toEqual({ strategy: 'rsi', candleTime: 120, leg: 'o' });
    expect(minterOf(rsi, 'ETH_USDT', strategies)).toBeUndefined(); // rsi does not trade ETH_USDT
    // 'sma-cross' and 'SMA Cross' share the slug "smacross".
    for (const name of ['sma-cross', 'SMA Cross']) {
      const id = deriveClientOrderId({ strategy: name, market: 'BTC_USDT', candleTime: 180, leg: 'tp' });
      expect(minterOf(id, 'BTC_USDT', strategies)?.strategy).toBe(name);
    }
    expect(minterOf(deriveClientOrderId({ strategy: 'other', market: 'BTC_USDT', candleTime: 1, leg: 'o' }), 'BTC_USDT', strategies)).toBeUndefined();
  });
});

import { ConfigError } from '../../../src/domain/errors';
import { accountIdFromApiKey, DEFAULT_KEY_PREFIX, StoreKeys } from '../../../src/store/keys';

describe('StoreKeys', () => {
  const apiKey = '4d1a2b3c4d5e6f708192a3b4c5d6e7f8';
  const keys = StoreKeys.forApiKey(apiKey);

  test('account is 12 hex digits of SHA-256 of the API key, never the key', () => {
    expect(accountIdFromApiKey(apiKey)).toMatch(/^[0-9a-f]{12}$/);
    expect(accountIdFromApiKey(apiKey)).toBe(keys.account);
    expect(accountIdFromApiKey(`${apiKey}x`)).not.toBe(keys.account);
    expect(() => accountIdFromApiKey('')).toThrow(ConfigError);
  });

  test('every key is <prefix>:{<account>}:<kind>:<id> with the default prefix', () => {
    expect(keys.prefix).toBe(DEFAULT_KEY_PREFIX);
    const all = [
      keys.nonce(), keys.bucket('orders'), keys.order('tb-x-1'), keys.orderHistory('tb-x-1'), keys.liveOrders(), keys.allOrders(),
      keys.strategyOrders('sma cross'), keys.liveCounts(), keys.lease('sma', 'BTC_USDT'), keys.fence('sma', 'BTC_USDT'), keys.tradingState(),
      keys.tradingStateApplied(), keys.tradingStateSeen(),
    ];
    for (const k of all) {
      expect(k).toMatch(new RegExp(`^tradebot:\\{${keys.account}\\}:[a-z-]+:\\S+$`));
      expect(k).not.toContain(apiKey);
    }
    expect(keys.order('tb-x-1')).toBe(`tradebot:{${keys.account}}:order:tb-x-1`);
    expect(keys.tradingState()).toBe(`tradebot:{${keys.account}}:control:trading-state`);
    expect(new Set(all).size).toBe(all.length);
  });

  test('the prefix is configurable; braces (which would move the hash tag) are refused', () => {
    expect(new StoreKeys('abc', 'tb:test').nonce()).toBe('tb:test:{abc}:nonce:last');
    expect(() => new StoreKeys('abc', 'a{b}')).toThrow(ConfigError);
    expect(() => new StoreKeys('a}b')).toThrow(ConfigError);
    expect(() => keys.order('x{y}')).toThrow(ConfigError);
    expect(() => keys.order('')).toThrow(ConfigError);
  });

  test('(strategy, market) scope ids are unambiguous and reversible', () => {
    const id = StoreKeys.scopeId('a|b', 'BTC_USDT');
    expect(id).not.toBe(StoreKeys.scopeId('a', 'b|BTC_USDT'));
    expect(StoreKeys.parseScopeId(id)).toEqual({ strategy: 'a|b', market: 'BTC_USDT' });
  });
});

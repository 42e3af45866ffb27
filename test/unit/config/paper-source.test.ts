import { parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

/** Paper mode: the embedded simulator (markets + balances) or a running one (exchangeUrl), never a mix. */
const base = (paper: Record<string, unknown>): Record<string, unknown> => ({ mode: 'paper', paper, strategies: { enabled: [{ name: 'sma-cross' }] } });

function pathOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).context['path'];
  }
  throw new Error('accepted');
}

test('a running simulator by URL needs no markets or balances', () => {
  expect(parseConfig(base({ exchangeUrl: 'http://127.0.0.1:8080' }), {}).paper?.exchangeUrl).toBe('http://127.0.0.1:8080');
});

test('markets or balances next to exchangeUrl are refused, naming them', () => {
  expect(pathOf(() => parseConfig(base({ exchangeUrl: 'http://127.0.0.1:8080', balances: { USDT: '1' } }), {}))).toBe('paper.balances');
});

test('the embedded simulator still needs both', () => {
  expect(pathOf(() => parseConfig(base({ balances: { USDT: '1' } }), {}))).toBe('paper.markets');
  expect(pathOf(() => parseConfig(base({ markets: [{ market: 'BTC_USDT', data: 'x.csv' }] }), {}))).toBe('paper.balances');
});

test('exchangeUrl must be a URL', () => {
  expect(pathOf(() => parseConfig(base({ exchangeUrl: 'not a url' }), {}))).toBe('paper.exchangeUrl');
});

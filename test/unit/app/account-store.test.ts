import { accountKeys, storeKeysFor } from '../../../src/app/account-store';
import { parseConfig } from '../../../src/config/load';

/**
 * Paper is paper (issue #29, finding 5): a paper deployment never shares a live deployment's keys,
 * even with the live API key, Redis and prefix; live keys stay exactly where they always were.
 */
const ENV = { TRADEBOT_API_KEY: 'live-key', TRADEBOT_API_SECRET: 'live-secret' };
const strategies = { enabled: [{ name: 'sma-cross' }] };
const live = parseConfig({
  mode: 'live', redis: { url: 'redis://127.0.0.1:6379' }, strategies,
  risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } }, killSwitch: { enabled: true },
}, ENV);
const paperRemote = parseConfig({ mode: 'paper', redis: { url: 'redis://127.0.0.1:6379' }, paper: { exchangeUrl: 'http://127.0.0.1:8080' }, strategies }, ENV);
const paperEmbedded = parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } }, strategies }, ENV);

test('live keys are the ones the old code derived (sha256("live-key") -> 13705115bca8), unchanged', () => {
  const keys = accountKeys(live, ENV);
  expect(keys.base).toBe('tradebot:{13705115bca8}');
  expect(keys.nonce()).toBe('tradebot:{13705115bca8}:nonce:last');
  expect(keys.order('c1')).toBe('tradebot:{13705115bca8}:order:c1');
  expect(keys.lease('s', 'BTC_USDT')).toBe('tradebot:{13705115bca8}:lease:s|BTC_USDT');
  expect(keys.tradingState()).toBe('tradebot:{13705115bca8}:control:trading-state');
  expect(keys.strategyVersions()).toBe('tradebot:{13705115bca8}:control:strategy-versions');
});

test('paper with the SAME key, Redis and prefix gets its own namespace: journal, leases, nonce, buckets, control, drift', () => {
  const l = accountKeys(live, ENV);
  const p = accountKeys(paperRemote, ENV);
  expect(p.base).toBe('tradebot:paper:{13705115bca8}');
  const all = (k: typeof l): string[] => [k.nonce(), k.bucket('orders'), k.order('c1'), k.liveOrders(), k.allOrders(), k.lease('s', 'BTC_USDT'), k.fence('s', 'BTC_USDT'),
    k.tradingState(), k.strategyVersions(), k.strategyRequests(), k.strategyShadow(), k.driftDecisions(), k.driftRuns()];
  const liveKeys = new Set(all(l));
  for (const key of all(p)) expect(liveKeys.has(key)).toBe(false);
  // The Redis nonce allocator builds its key from (apiKey, prefix): the paper prefix moves it too.
  expect(storeKeysFor('paper', 'live-key', 'tradebot').nonce()).toBe('tradebot:paper:{13705115bca8}:nonce:last');
});

test('the embedded simulator is paper too; a custom prefix keeps its live keys and gets a paper twin', () => {
  expect(accountKeys(paperEmbedded, {}).base).toBe('tradebot:paper:{05165498869e}');
  expect(storeKeysFor('live', 'live-key', 'desk-1').base).toBe('desk-1:{13705115bca8}');
  expect(storeKeysFor('paper', 'live-key', 'desk-1').base).toBe('desk-1:paper:{13705115bca8}');
});

test('no configurable prefix can name the paper namespace (redis.keyPrefix has no ":")', () => {
  expect(() => parseConfig({ ...paperEmbedded, redis: { keyPrefix: 'tradebot:paper' } }, {})).toThrow(/redis\.keyPrefix/);
  expect(() => parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } }, strategies }, { TRADEBOT_REDIS_PREFIX: 'tradebot:paper' })).toThrow(/redis\.keyPrefix/);
});

import { parseConfig } from '../../../src/config/load';
import { refusedChange } from '../../../src/strategy-control/live-changes';

const base = {
  mode: 'paper',
  paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
  strategies: { dir: 'strategies', enabled: [{ name: 'a', params: { n: 1 } }, { name: 'b' }] },
};
const config = (patch: (c: any) => void = () => undefined, env: NodeJS.ProcessEnv = {}) => {
  const c = structuredClone(base) as any;
  patch(c);
  return parseConfig(c, env);
};

test('params, markets and shadowCandles may change on a running daemon', () => {
  expect(refusedChange(config(), config((c) => {
    c.strategies.enabled[0].params = { n: 2 };
    c.strategies.enabled[1].markets = ['ETH_USDT'];
    c.strategies.shadowCandles = 5;
  }))).toBeUndefined();
});

test('anything wired at start-up is refused, naming the key and never its value', () => {
  const r = refusedChange(config(), config(() => undefined, { TRADEBOT_REDIS_URL: 'redis://:hunter2@db:6379' }));
  expect(r?.key).toBe('redis.url');
  expect(r?.reason).not.toContain('hunter2');
  expect(refusedChange(config(), config((c) => { c.exchange = { baseUrl: 'https://other.example' }; }))?.key).toBe('exchange.baseUrl');
  expect(refusedChange(config(), config((c) => { c.strategies.timeBudgetMs = 999; }))?.key).toBe('strategies.timeBudgetMs');
  expect(refusedChange(config(), config((c) => { c.risk = { defaults: { priceBand: '0.5' } }; }))?.key).toMatch(/^risk\./);
});

test('the strategy list and intervals are refused by name', () => {
  expect(refusedChange(config(), config((c) => { c.strategies.enabled.push({ name: 'c' }); }))).toMatchObject({ key: 'strategies.enabled', reason: expect.stringContaining('c added') });
  expect(refusedChange(config(), config((c) => { c.strategies.enabled.pop(); }))).toMatchObject({ key: 'strategies.enabled', reason: expect.stringContaining('b removed') });
  expect(refusedChange(config(), config((c) => { c.strategies.enabled[1].interval = '5m'; }))?.key).toBe('strategies.enabled[1].interval');
});

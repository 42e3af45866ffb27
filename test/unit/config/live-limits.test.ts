import { loadConfig, parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

/** Live requires limits (issue #29, finding 7); paper keeps its defaults. */
const ENV = { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };
const LIMITS = {
  risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } },
  killSwitch: { enabled: true },
};
const live = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ mode: 'live', strategies: { enabled: [{ name: 'sma-cross' }] }, ...extra });
const ALL = ['risk.defaults.maxNotionalPerOrder', 'risk.defaults.maxNotionalPerMarket', 'risk.dailyLossLimit', 'risk.guardrails.account.drawdown', 'killSwitch.enabled'];

function refusal(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = ENV): ConfigError {
  try {
    parseConfig(raw, env, 'live.yaml');
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('config accepted');
}

test('live without a risk section or kill-switch is refused, naming every missing key at once', () => {
  const err = refusal(live());
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.code).toBe('TB_ERR_CONFIG');
  expect(err.message).toContain('live.yaml: live mode refuses to start without its limits');
  for (const key of ALL) expect(err.message).toContain(`  ${key}: required in live mode`);
  expect((err.context['problems'] as { path: string }[]).map((p) => p.path)).toEqual(ALL);
  expect(err.context['path']).toBe(ALL[0]);
});

test.each(ALL)('live without only %s is refused naming that key alone', (key) => {
  const risk = structuredClone(LIMITS.risk) as { defaults: Record<string, string>; dailyLossLimit?: string; guardrails?: unknown };
  let killSwitch: { enabled: boolean } = { enabled: true };
  if (key === 'risk.dailyLossLimit') delete risk.dailyLossLimit;
  else if (key === 'risk.guardrails.account.drawdown') delete risk.guardrails;
  else if (key === 'killSwitch.enabled') killSwitch = { enabled: false };
  else delete risk.defaults[key.split('.')[2]!];
  const err = refusal(live({ risk, killSwitch }));
  expect((err.context['problems'] as { path: string }[]).map((p) => p.path)).toEqual([key]);
});

test('per-market limits alone do not count: the defaults cover markets a module declares itself', () => {
  const err = refusal(live({ ...LIMITS, risk: { markets: { BTC_USDT: { maxNotionalPerOrder: '1', maxNotionalPerMarket: '2' } }, dailyLossLimit: '5', guardrails: { account: { drawdown: [{ max: '5', window: '24h' }] } } } }));
  expect((err.context['problems'] as { path: string }[]).map((p) => p.path)).toEqual(['risk.defaults.maxNotionalPerOrder', 'risk.defaults.maxNotionalPerMarket']);
});

test('turning the kill-switch off through the environment is refused too', () => {
  const err = refusal(live(LIMITS), { ...ENV, TRADEBOT_CONFIG__KILL_SWITCH__ENABLED: 'false' });
  expect(err.context['path']).toBe('killSwitch.enabled');
});

test('live with every limit passes; paper without any keeps its defaults', () => {
  expect(parseConfig(live(LIMITS), ENV).killSwitch.enabled).toBe(true);
  const paper = parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'sma-cross' }] } }, {});
  expect([paper.risk.defaults.maxNotionalPerOrder, paper.risk.dailyLossLimit, paper.killSwitch.enabled]).toEqual([undefined, undefined, false]);
});

test('config/live.example.yaml has every required limit', () => {
  expect(loadConfig('config/live.example.yaml', ENV).mode).toBe('live');
});

test('guardrails for a strategy that is not enabled are refused, naming it', () => {
  const risk = { ...LIMITS.risk, guardrails: { ...LIMITS.risk.guardrails, strategies: { 'sma-crosss': { budget: { share: '0.5' } } } } };
  const err = refusal(live({ ...LIMITS, risk }));
  expect(err.message).toContain('risk.guardrails.strategies.sma-crosss: no enabled strategy has this name (enabled: sma-cross)');
  expect(err.context['path']).toBe('risk.guardrails.strategies.sma-crosss');
});

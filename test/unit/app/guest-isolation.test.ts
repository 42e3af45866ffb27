import { guestIsolationOf } from '../../../src/app/guest-isolation';
import { parseConfig, type FrozenConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';
import { isolationAtLeast } from '../../../src/domain/guest-isolation';
import { defaultIsolation } from '../../../src/strategy/guest/sandbox';

/**
 * strategies.guestIsolation and strategies.minGuestIsolation (issue #29: "let the config demand a
 * minimum that live mode refuses to start below"): live defaults to permission-net, paper to thread.
 */
const ENV = { TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };
const LIMITS = {
  risk: { defaults: { maxNotionalPerOrder: '100', maxNotionalPerMarket: '300' }, dailyLossLimit: '50', guardrails: { account: { drawdown: [{ max: '50', window: '24h' }] } } },
  killSwitch: { enabled: true },
};
const NODE_COVERS_NET = process.allowedNodeEnvironmentFlags.has('--allow-net');

function live(strategies: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = ENV): FrozenConfig {
  return parseConfig({ mode: 'live', ...LIMITS, strategies: { enabled: [{ name: 'sma-cross' }], ...strategies } }, env, 'live.yaml');
}
function paper(strategies: Record<string, unknown> = {}): FrozenConfig {
  return parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'sma-cross' }], ...strategies } }, {}, 'paper.yaml');
}
function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('accepted');
}

test('live with guestIsolation: thread is refused, naming strategies.minGuestIsolation and the level', () => {
  const err = refusal(() => guestIsolationOf(live({ guestIsolation: 'thread' })));
  expect(err.code).toBe('TB_ERR_CONFIG');
  expect(err.context['path']).toBe('strategies.minGuestIsolation');
  expect(err.message).toContain('strategies.minGuestIsolation');
  expect(err.message).toContain('would run at "thread" here, below the required "permission-net"');
});

test('live with thread through the environment is refused the same way', () => {
  const config = live({}, { ...ENV, TRADEBOT_CONFIG__STRATEGIES__GUEST_ISOLATION: 'thread' });
  expect(config.strategies.guestIsolation).toBe('thread');
  expect(refusal(() => guestIsolationOf(config)).context['path']).toBe('strategies.minGuestIsolation');
});

test('live with guestIsolation: permission needs a Node whose permission model covers the network', () => {
  const config = live({ guestIsolation: 'permission' });
  if (NODE_COVERS_NET) expect(guestIsolationOf(config)).toBe('permission-net');
  else expect(refusal(() => guestIsolationOf(config)).message).toContain(`Node ${process.versions.node}'s permission model does not cover the network`);
});

test('live by default (auto) gets the strongest level this host gives, or is refused when that is below permission-net', () => {
  const config = live();
  expect(config.strategies.guestIsolation).toBe('auto');
  if (isolationAtLeast(defaultIsolation(), 'permission-net')) expect(guestIsolationOf(config)).toBe(defaultIsolation());
  else expect(refusal(() => guestIsolationOf(config)).context['path']).toBe('strategies.minGuestIsolation');
  // `process`, the older name of auto, resolves the same.
  const older = live({ guestIsolation: 'process' });
  if (isolationAtLeast(defaultIsolation(), 'permission-net')) expect(guestIsolationOf(older)).toBe(defaultIsolation());
});

test('paper with thread is accepted: paper\'s default minimum is thread', () => {
  const config = paper({ guestIsolation: 'thread' });
  expect(guestIsolationOf(config)).toBe('thread');
  expect(guestIsolationOf(config)).toBe('thread'); // one answer per config
});

test('paper may demand more: minGuestIsolation applies in paper too', () => {
  const err = refusal(() => guestIsolationOf(paper({ guestIsolation: 'thread', minGuestIsolation: 'permission' })));
  expect(err.message).toContain('would run at "thread" here, below the required "permission" (strategies.guestIsolation is "thread"');
});

test('minGuestIsolation: namespaces with guestIsolation: permission is refused, naming the key', () => {
  for (const config of [paper({ guestIsolation: 'permission', minGuestIsolation: 'namespaces' }), live({ guestIsolation: 'permission', minGuestIsolation: 'namespaces' })]) {
    const err = refusal(() => guestIsolationOf(config));
    expect(err.context['path']).toBe('strategies.minGuestIsolation');
    expect(err.message).toMatch(/below the required "namespaces"/);
  }
});

test('guestIsolation: namespaces is either had or refused naming strategies.guestIsolation, never quietly weaker', () => {
  const config = paper({ guestIsolation: 'namespaces' });
  if (defaultIsolation() === 'namespaces') expect(guestIsolationOf(config)).toBe('namespaces');
  else expect(refusal(() => guestIsolationOf(config)).context['path']).toBe('strategies.guestIsolation');
});

test.each([
  ['guestIsolation', 'bogus'], ['guestIsolation', 'permission-net'], ['guestIsolation', ''],
  ['minGuestIsolation', 'auto'], ['minGuestIsolation', 'strong'], ['minGuestIsolation', 3],
])('an unknown strategies.%s (%p) is refused by the schema, naming the key', (key, value) => {
  for (const build of [() => paper({ [key]: value }), () => live({ [key]: value })]) {
    const err = refusal(build);
    expect(err.context['path']).toBe(`strategies.${key}`);
    expect(err.message).toContain(`strategies.${key}: `);
  }
});

import { ConfigError } from '../domain/errors';
import type { Config } from './schema';

/**
 * What live mode will not trade without (paper keeps its defaults: limits absent there are off).
 * The notional limits are required under `risk.defaults` because they then cover every market the
 * strategies trade, including markets a module declares itself (unknown here); `risk.markets.*` may
 * still override them per market. Each entry: the key path and what it bounds.
 */
const REQUIRED: readonly { readonly path: string; readonly what: string; readonly missing: (c: Config) => boolean }[] = [
  { path: 'risk.defaults.maxNotionalPerOrder', what: 'max notional of one order, in the quote currency', missing: (c) => c.risk.defaults.maxNotionalPerOrder === undefined },
  { path: 'risk.defaults.maxNotionalPerMarket', what: 'max notional of all open orders on one market', missing: (c) => c.risk.defaults.maxNotionalPerMarket === undefined },
  { path: 'risk.dailyLossLimit', what: 'realised loss per UTC day after which new entries stop', missing: (c) => c.risk.dailyLossLimit === undefined },
  { path: 'risk.guardrails.account.drawdown', what: 'at least one drawdown stop for the account, from the peak of equity (docs/risk.md)', missing: (c) => c.risk.guardrails.account.drawdown.length === 0 },
  { path: 'killSwitch.enabled', what: 'must be true: the venue cancels our orders when the daemon stops refreshing it', missing: (c) => !c.killSwitch.enabled },
];

/**
 * Live mode without its limits: a ConfigError naming EVERY missing key at once (one fix, one
 * check-config run), or undefined when all are set or the mode is paper.
 */
export function liveLimitsError(config: Config, file: string): ConfigError | undefined {
  if (config.mode !== 'live') return undefined;
  const missing = REQUIRED.filter((r) => r.missing(config));
  if (missing.length === 0) return undefined;
  const problems = missing.map((r) => ({ path: r.path, message: `required in live mode (${r.what})` }));
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  return new ConfigError(`${file}: live mode refuses to start without its limits; missing:\n${lines}`, { file, path: problems[0]!.path, problems });
}

import * as path from 'node:path';
import type { FrozenConfig } from '../config/load';
import { ConfigError, type StrategyLoadError } from '../domain/errors';
import type { StrategyConfig } from '../strategy/prepare-strategy';
import { describeStrategies, type DescribedStrategy } from '../strategy/guest/describe-strategies';
import type { GuestStrategy } from '../strategy/guest/guest-host';
import type { DaemonContext } from './daemon-context';
import { guestIsolationMinimum, guestIsolationOf } from './guest-isolation';

export interface ConfiguredStrategies<S extends GuestStrategy = DescribedStrategy> {
  /** Enabled strategies that loaded and validated, with config overrides (markets, interval, params) applied. */
  readonly strategies: readonly S[];
  /** One per module that failed to load or validate, and per enabled name no module defines. */
  readonly errors: readonly StrategyLoadError[];
  /** The directory read (absolute). */
  readonly dir: string;
}

/**
 * Loads the strategy directory and keeps the strategies `strategies.enabled` names, with their config
 * applied. Every module is loaded and validated in its own throwaway guest (describeStrategies): the
 * daemon and check-config get metadata only, and a module's top-level code never runs in their
 * process. Modules that are in the directory but not enabled are still loaded (and their errors
 * reported), so a broken file is noticed before someone enables it.
 */
export async function describeConfiguredStrategies(config: FrozenConfig, baseDir: string): Promise<ConfiguredStrategies<DescribedStrategy>> {
  return describeStrategiesIn(config, path.resolve(baseDir, config.strategies.dir));
}

/**
 * The daemon's strategies, each module loaded and validated in a throwaway guest (metadata back, no
 * module code in this process): a bad module is reported and the others run, but a config error about
 * an enabled strategy (strategyConfigErrors), or no strategy at all, refuses the start (exit 78).
 */
export async function loadStrategies(ctx: DaemonContext): Promise<ConfiguredStrategies<DescribedStrategy>> {
  const { config: c, log } = ctx;
  const isolation = guestIsolationOf(c);
  ctx.metrics.guestIsolationInfo.set({ level: isolation }, 1);
  log.info({ isolation, minimum: guestIsolationMinimum(c) }, `strategy guests isolated at level "${isolation}" (docs/security.md)`);
  const loaded = await describeConfiguredStrategies(c, ctx.baseDir);
  for (const error of loaded.errors) log.error({ file: error.context['file'], reason: error.context['reason'], err: error }, `strategy not loaded: ${error.message}`);
  const configErrors = strategyConfigErrors(loaded.errors);
  if (configErrors.length > 0) {
    throw new ConfigError(`strategies.enabled: ${configErrors.map((e) => e.message).join('; ')}`, { path: 'strategies.enabled' });
  }
  if (loaded.strategies.length === 0) {
    throw new ConfigError(`no enabled strategy could be loaded from ${loaded.dir}; see the errors above`, { path: 'strategies.enabled' });
  }
  return loaded;
}

/** As describeConfiguredStrategies, from `dir` (a reload reads a copy of the strategy directory, or a kept version). */
export async function describeStrategiesIn(config: FrozenConfig, dir: string): Promise<ConfiguredStrategies<DescribedStrategy>> {
  const described = await describeStrategies(dir, strategyConfigs(config), { isolation: guestIsolationOf(config), heapMb: config.strategies.guestHeapMb });
  return enabledOnly(config, dir, described);
}

function enabledOnly<S extends GuestStrategy>(config: FrozenConfig, dir: string, result: { strategies: readonly S[]; errors: readonly StrategyLoadError[] }): ConfiguredStrategies<S> {
  const byName = new Map(result.strategies.map((s) => [s.name, s]));
  const strategies: S[] = [];
  for (const entry of config.strategies.enabled) {
    const loaded = byName.get(entry.name);
    if (loaded === undefined) continue; // reported in result.errors (load failure or unknown name)
    strategies.push(entry.interval === undefined || entry.interval === loaded.interval ? loaded : Object.freeze({ ...loaded, interval: entry.interval }));
  }
  return { strategies, errors: result.errors, dir };
}


/** Per enabled strategy name: the markets and params the config gives it (what the loader applies). */
export function strategyConfigs(config: FrozenConfig): Record<string, StrategyConfig> {
  const perName: Record<string, StrategyConfig> = {};
  for (const entry of config.strategies.enabled) {
    perName[entry.name] = {
      ...(entry.markets === undefined ? {} : { markets: [...entry.markets] }),
      params: entry.params as Readonly<Record<string, unknown>>,
    };
  }
  return perName;
}

/**
 * Errors in what the CONFIG says about strategies (a parameter that is invalid or unknown, an
 * enabled name no module defines), as opposed to a broken module: the daemon refuses to start on
 * these (exit 78), because running without the strategy the operator asked for, or with a default
 * instead of the value they typed, is worse than not running.
 */
function strategyConfigErrors(errors: readonly StrategyLoadError[]): StrategyLoadError[] {
  return errors.filter((e) => e.context['param'] !== undefined || e.context['reason'] === 'unknown' || (e.context['field'] === 'markets' && e.context['strategy'] !== undefined));
}

/** Market seconds of history the strategies need before trading (paper mode starts the clock there). */
export function warmupSeconds(strategies: readonly GuestStrategy[], intervalSeconds: (i: GuestStrategy['interval']) => number): number {
  let max = 0;
  for (const s of strategies) max = Math.max(max, (s.warmup + 2) * intervalSeconds(s.interval));
  return max;
}

import * as path from 'node:path';
import type { FrozenConfig } from '../config/load';
import { parseFillModel } from '../domain/fill-model';
import { BacktestInputError } from '../domain/errors';
import type { DriftSpec } from './run-drift';

/**
 * The drift check of a deployment's config over [from, to): its enabled strategies (or the one asked
 * for), their folder, its risk rules and (paper) the simulator's fill model. The daemon's periodic
 * check and `tradebot drift` build it here, so both replay under the same rules.
 */
export function driftSpecOf(config: FrozenConfig, baseDir: string, from: number, to: number, only?: string): DriftSpec {
  const enabled = config.strategies.enabled.filter((s) => only === undefined || s.name === only);
  if (enabled.length === 0) throw new BacktestInputError(`--strategy ${only}: not enabled in the config (${config.strategies.enabled.map((s) => s.name).join(', ')})`, { field: 'strategy' });
  const fill = parseFillModel(config.paper?.fill ?? {});
  return {
    from, to, strategies: enabled, strategiesDir: path.resolve(baseDir, config.strategies.dir), risk: config.risk,
    fillModel: config.mode === 'paper' && fill.ok ? fill.model : undefined,
  };
}

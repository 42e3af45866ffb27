import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { StrategyLoadError } from '../domain/errors';
import { ModuleEvaluator } from './module-evaluator';
import { prepareStrategy, type LoadedStrategy, type StrategyConfig } from './prepare-strategy';

export interface LoadStrategiesOptions {
  /** Per strategy name: enabled / markets / params overrides. A name no module defines is reported. */
  readonly config?: Readonly<Record<string, StrategyConfig>> | undefined;
}

export interface LoadStrategiesResult {
  /** Valid, enabled strategies, sorted by file name (deterministic order). */
  readonly strategies: readonly LoadedStrategy[];
  /** One StrategyLoadError per module that failed (context.file, context.reason); the others still load. */
  readonly errors: readonly StrategyLoadError[];
  /** Names of valid strategies disabled by config. */
  readonly disabled: readonly string[];
}

/** Which files of a strategy directory are modules: `*.ts`/`*.js`, not declarations, tests or `_helpers`. */
export function isStrategyFile(name: string): boolean {
  if (name.startsWith('_') || name.startsWith('.')) return false;
  if (name.endsWith('.d.ts')) return false;
  if (/\.(test|spec)\./.test(name)) return false;
  return name.endsWith('.ts') || name.endsWith('.js');
}

/**
 * Loads every strategy module of `dir` (not recursive). Each module default-exports a
 * StrategyDefinition (a CommonJS `module.exports = definition` is accepted too). A module that fails
 * to load, to validate, or whose config params do not validate is reported in `errors` with its file
 * and reason; it does not stop the others. A directory that cannot be read throws StrategyLoadError.
 */
export function loadStrategies(dir: string, options: LoadStrategiesOptions = {}): LoadStrategiesResult {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isStrategyFile(e.name)).map((e) => e.name).sort();
  } catch (err) {
    throw new StrategyLoadError(`cannot read strategy directory ${dir}: ${(err as Error).message}`, { file: dir }, { cause: err });
  }
  const config = options.config ?? {};
  const evaluator = new ModuleEvaluator();
  const strategies: LoadedStrategy[] = [];
  const errors: StrategyLoadError[] = [];
  const disabled: string[] = [];
  const byName = new Map<string, string>();
  /** Names declared by modules, valid or not (a config for an invalid module is not "unknown"). */
  const mentioned = new Set<string>();

  for (const name of names) {
    const file = path.join(dir, name);
    let exported: unknown;
    try {
      const mod = evaluator.load(file) as { default?: unknown } | undefined;
      exported = mod !== null && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
    } catch (err) {
      errors.push(new StrategyLoadError(`${file}: failed to load: ${(err as Error)?.message ?? String(err)}`, { file, reason: 'load' }, { cause: err }));
      continue;
    }
    const declaredName = (exported as { name?: unknown } | null)?.name;
    if (typeof declaredName === 'string') mentioned.add(declaredName);
    const cfg = typeof declaredName === 'string' ? config[declaredName] : undefined;
    let loaded: LoadedStrategy;
    try {
      loaded = prepareStrategy(exported, { file, config: cfg });
    } catch (err) {
      const e = err as StrategyLoadError;
      errors.push(new StrategyLoadError(e.message, { ...e.context, file, reason: 'invalid' }, { cause: err }));
      continue;
    }
    const other = byName.get(loaded.name);
    if (other !== undefined) {
      errors.push(new StrategyLoadError(`${file}: strategy name "${loaded.name}" is already used by ${other}`, { file, strategy: loaded.name, reason: 'duplicate' }));
      continue;
    }
    byName.set(loaded.name, file);
    if (cfg?.enabled === false) disabled.push(loaded.name);
    else strategies.push(loaded);
  }
  for (const configured of Object.keys(config)) {
    if (!mentioned.has(configured)) {
      errors.push(new StrategyLoadError(`config names strategy "${configured}" but no module in ${dir} defines it`, { file: dir, strategy: configured, reason: 'unknown' }));
    }
  }
  return { strategies, errors, disabled };
}

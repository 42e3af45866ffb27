import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { StrategyLoadError } from '../domain/errors';
import { ModuleEvaluator } from './module-evaluator';
import type { StrategySource } from './strategy-version';
import { prepareStrategy, type LoadedStrategy, type StrategyConfig } from './prepare-strategy';

export interface LoadStrategiesOptions {
  /** Per strategy name: enabled / markets / params overrides. A name no module defines is reported. */
  readonly config?: Readonly<Record<string, StrategyConfig>> | undefined;
  /** Load only this module file of the directory (a file name, as `isStrategyFile` lists them). */
  readonly only?: string | undefined;
}

export interface LoadStrategiesResult {
  /** Valid, enabled strategies, sorted by file name (deterministic order). */
  readonly strategies: readonly LoadedStrategy[];
  /** One StrategyLoadError per module that failed (context.file, context.reason); the others still load. */
  readonly errors: readonly StrategyLoadError[];
  /** Names of valid strategies disabled by config. */
  readonly disabled: readonly string[];
  /** Names declared by the modules read, valid or not. */
  readonly declared: readonly string[];
  /** Per loaded strategy name: the module file and the local files it imports, with their hashes (module first). */
  readonly sources: ReadonlyMap<string, readonly StrategySource[]>;
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
  // One named file is loaded without listing the folder: a guest may read its own module, not the others'.
  const names = options.only !== undefined ? [options.only].filter(isStrategyFile) : strategyFiles(dir);
  const config = options.config ?? {};
  const evaluator = new ModuleEvaluator();
  const strategies: LoadedStrategy[] = [];
  const errors: StrategyLoadError[] = [];
  const disabled: string[] = [];
  const byName = new Map<string, string>();
  /** Names declared by modules, valid or not (a config for an invalid module is not "unknown"). */
  const mentioned = new Set<string>();
  const sources = new Map<string, readonly StrategySource[]>();

  for (const name of names) {
    const file = path.join(dir, name);
    const outcome = loadModule(evaluator, file, config);
    if (outcome.declaredName !== undefined) mentioned.add(outcome.declaredName);
    if (outcome.error !== undefined) {
      errors.push(outcome.error);
      continue;
    }
    const loaded = outcome.loaded as LoadedStrategy;
    const other = byName.get(loaded.name);
    if (other !== undefined) {
      errors.push(duplicateError(file, loaded.name, other));
      continue;
    }
    byName.set(loaded.name, file);
    sources.set(loaded.name, evaluator.sourcesOf(file));
    if (config[loaded.name]?.enabled === false) disabled.push(loaded.name);
    else strategies.push(loaded);
  }
  for (const configured of Object.keys(config)) {
    if (!mentioned.has(configured)) {
      errors.push(new StrategyLoadError(`config names strategy "${configured}" but no module in ${dir} defines it`, { file: dir, strategy: configured, reason: 'unknown' }));
    }
  }
  return { strategies, errors, disabled, declared: [...mentioned], sources };
}

/** The strategy module file names of `dir`, sorted. Throws StrategyLoadError when it cannot be read. */
export function strategyFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isStrategyFile(e.name)).map((e) => e.name).sort();
  } catch (err) {
    throw new StrategyLoadError(`cannot read strategy directory ${dir}: ${(err as Error).message}`, { file: dir }, { cause: err });
  }
}

interface ModuleOutcome {
  /** The `name` the module's export declares, valid or not. */
  readonly declaredName: string | undefined;
  readonly loaded?: LoadedStrategy;
  readonly error?: StrategyLoadError;
}

/** Evaluates one module and validates its export with the config of the name it declares. Never throws. */
function loadModule(evaluator: ModuleEvaluator, file: string, config: Readonly<Record<string, StrategyConfig>>): ModuleOutcome {
  let exported: unknown;
  try {
    const mod = evaluator.load(file) as { default?: unknown } | undefined;
    exported = mod !== null && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
  } catch (err) {
    return { declaredName: undefined, error: new StrategyLoadError(`${file}: failed to load: ${(err as Error)?.message ?? String(err)}`, { file, reason: 'load' }, { cause: err }) };
  }
  const name = (exported as { name?: unknown } | null)?.name;
  const declaredName = typeof name === 'string' ? name : undefined;
  try {
    return { declaredName, loaded: prepareStrategy(exported, { file, config: declaredName === undefined ? undefined : config[declaredName] }) };
  } catch (err) {
    const e = err as StrategyLoadError;
    return { declaredName, error: new StrategyLoadError(e.message, { ...e.context, file, reason: 'invalid' }, { cause: err }) };
  }
}

function duplicateError(file: string, name: string, other: string): StrategyLoadError {
  return new StrategyLoadError(`${file}: strategy name "${name}" is already used by ${other}`, { file, strategy: name, reason: 'duplicate' });
}

/** One strategy found by name, with the source files it was built from. */
export interface FoundStrategy {
  readonly strategy: LoadedStrategy;
  /** The module file and the local files it imports, each with the SHA-256 of its source (module first). */
  readonly sources: readonly StrategySource[];
}

/**
 * Finds the strategy named `name` in `dir` and loads only what it needs (a backtest: evaluating
 * every module of the folder would cost a transpile each). Modules are tried in this order, stopping
 * at the first that declares the name:
 *   1. the file named after the strategy (`sma-cross.ts` for "sma-cross");
 *   2. the other modules whose source contains the name as a quoted string;
 *   3. all the others (a name built at run time), only when 1 and 2 found nothing.
 * Every module of step 2 is loaded even after a match, so a second module declaring the same name
 * is refused as in `loadStrategies`. Throws StrategyLoadError: the module's own load or validation
 * error (with `config` applied to the parameters), a duplicate, or no such strategy (listing the
 * names found and the modules that failed to load).
 */
export function findStrategy(dir: string, name: string, config: StrategyConfig = {}): FoundStrategy {
  const names = strategyFiles(dir);
  const own = names.filter((n) => n.replace(/\.(ts|js)$/, '') === name);
  const quoted = names.filter((n) => !own.includes(n) && mentionsName(path.join(dir, n), name));
  const evaluator = new ModuleEvaluator();
  const configs = { [name]: config };
  const seen: string[] = [];
  const failures: StrategyLoadError[] = [];
  let found: { file: string; loaded: LoadedStrategy } | undefined;
  const tryFile = (n: string): void => {
    const file = path.join(dir, n);
    const outcome = loadModule(evaluator, file, configs);
    if (outcome.declaredName === name) {
      if (outcome.error !== undefined) throw outcome.error;
      if (found !== undefined) throw duplicateError(file, name, found.file);
      found = { file, loaded: outcome.loaded as LoadedStrategy };
    } else if (outcome.error !== undefined) failures.push(outcome.error);
    else if (outcome.loaded !== undefined) seen.push(outcome.loaded.name);
  };
  for (const n of [...own, ...quoted]) tryFile(n);
  if (found === undefined) for (const n of names) if (!own.includes(n) && !quoted.includes(n)) tryFile(n);
  if (found === undefined) {
    const broken = failures.length === 0 ? '' : `; modules that failed to load: ${failures.map((e) => e.message).join('; ')}`;
    throw new StrategyLoadError(`no strategy named "${name}" in ${dir} (found: ${seen.sort().join(', ') || 'none'})${broken}`, { file: dir, strategy: name, reason: 'unknown' });
  }
  const hit = found as { file: string; loaded: LoadedStrategy };
  return { strategy: hit.loaded, sources: evaluator.sourcesOf(hit.file) };
}

/**
 * The strategy `name` from the module `file` alone (a guest: it may read that file and the helpers, not
 * the folder). Throws StrategyLoadError: the module's own load or validation error, or a module that
 * declares another name.
 */
export function loadStrategyFile(file: string, name: string, config: StrategyConfig = {}): FoundStrategy {
  const evaluator = new ModuleEvaluator();
  const outcome = loadModule(evaluator, file, { [name]: config });
  if (outcome.error !== undefined) throw outcome.error;
  if (outcome.declaredName !== name || outcome.loaded === undefined) {
    throw new StrategyLoadError(`${file} declares strategy "${outcome.declaredName ?? '?'}", not "${name}"`, { file, strategy: name, reason: 'unknown' });
  }
  return { strategy: outcome.loaded, sources: evaluator.sourcesOf(file) };
}

/** Whether the module's text holds `name` as a quoted string ('x', "x" or `x`): a cheap pre-filter, no transpile. */
function mentionsName(file: string, name: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return true; // unreadable: let the loader report why
  }
  return text.includes(`'${name}'`) || text.includes(`"${name}"`) || text.includes(`\`${name}\``);
}

import { z } from 'zod';
import { INTERVALS, type Interval } from '../domain/candle';
import { MARKET_NAME, type MarketName } from '../domain/market';
import { StrategyLoadError } from '../domain/errors';
import { findUnknownParam } from './param-keys';
import type { StrategyDefinition } from './strategy';

/** Per-strategy config (from the config file, later): all optional. */
export interface StrategyConfig {
  /** false skips the strategy; default true. */
  readonly enabled?: boolean | undefined;
  /** Replaces the definition's default markets. */
  readonly markets?: readonly string[] | undefined;
  /** Overrides of the params schema's defaults; validated with the schema. */
  readonly params?: Readonly<Record<string, unknown>> | undefined;
}

/** A validated definition with its resolved markets and parameters: what the host runs. */
export interface LoadedStrategy<P = unknown> {
  readonly name: string;
  /** The module file, when loaded from a directory. */
  readonly file: string | undefined;
  readonly definition: StrategyDefinition<P>;
  readonly markets: readonly MarketName[];
  readonly interval: Interval;
  readonly params: P;
  readonly warmup: number;
  readonly window: number;
}

export const STRATEGY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

const fn = z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', { message: 'must be a function' });
const definitionSchema = z.object({
  name: z.string().regex(STRATEGY_NAME, 'name: 1-40 of letters, digits, . _ - (starting with a letter or digit)'),
  description: z.string().optional(),
  markets: z.array(z.string().regex(MARKET_NAME, 'market must look like BTC_USDT')).min(1, 'markets: at least one market'),
  interval: z.enum(INTERVALS),
  // Duck-typed, not instanceof: a module may bring its own copy of zod.
  params: z.custom<z.ZodType>((v) => typeof (v as { safeParse?: unknown } | null)?.safeParse === 'function', { message: 'params must be a zod schema' }),
  warmup: z.number().int().min(0),
  window: z.number().int().min(1).max(1_000_000).optional(),
  initState: fn.optional(),
  onCandle: fn,
});

/**
 * Validates a strategy definition and resolves its markets and parameters against `config`.
 * Throws StrategyLoadError naming the file, the strategy and (for parameters) the field path; an
 * unknown parameter (a key the params schema does not declare) is refused with the known ones.
 */
export function prepareStrategy(value: unknown, opts: { file?: string | undefined; config?: StrategyConfig | undefined } = {}): LoadedStrategy {
  const file = opts.file;
  const shape = definitionSchema.safeParse(value);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    const field = issue?.path.join('.') || 'export';
    throw new StrategyLoadError(`${file ?? 'strategy'}: invalid strategy definition: ${field}: ${issue?.message ?? 'invalid'}`, { file, field });
  }
  const def = value as StrategyDefinition;
  const name = shape.data.name;
  const config = opts.config ?? {};

  const markets = config.markets ?? shape.data.markets;
  const badMarket = markets.find((m) => !MARKET_NAME.test(m));
  if (markets.length === 0 || badMarket !== undefined) {
    throw new StrategyLoadError(`strategy ${name}: config markets: ${badMarket === undefined ? 'at least one market' : `"${badMarket}" must look like BTC_USDT`}`, { file, strategy: name, field: 'markets' });
  }

  // Unknown keys first: zod would drop them silently and a typo would run with the default.
  const unknown = findUnknownParam(shape.data.params, config.params ?? {});
  if (unknown !== undefined) {
    const known = unknown.known.length === 0 ? 'it takes no parameters' : `known: ${unknown.known.join(', ')}`;
    throw new StrategyLoadError(`strategy ${name}: unknown parameter "${unknown.path}" (${known})`, { file, strategy: name, param: unknown.path, known: [...unknown.known] });
  }
  const parsed = shape.data.params.safeParse(config.params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') || '(params)';
    if (issue !== undefined && missingValue(issue, config.params ?? {})) {
      throw new StrategyLoadError(`strategy ${name}: parameter ${param} has no default: every parameter needs a default (or a value in strategies.enabled[].params, or backtest --params)`, { file, strategy: name, param });
    }
    throw new StrategyLoadError(`strategy ${name}: parameter ${param}: ${issue?.message ?? 'invalid'}`, { file, strategy: name, param });
  }
  const params = Object.freeze(parsed.data) as unknown;

  const warmup = shape.data.warmup;
  const window = shape.data.window ?? Math.max(warmup, 2);
  if (window < warmup) {
    throw new StrategyLoadError(`strategy ${name}: window (${window}) is smaller than warmup (${warmup})`, { file, strategy: name, field: 'window' });
  }
  return Object.freeze({ name, file, definition: def, markets: Object.freeze([...new Set(markets)]), interval: shape.data.interval, params, warmup, window });
}

/**
 * True when the schema refused a parameter the config did not give: its schema has no default
 * (zod says `expected number, received undefined`, which does not tell an author what to do).
 * A refinement (`custom`) pointing at a defaulted key is not that.
 */
function missingValue(issue: { readonly code?: string; readonly path: readonly PropertyKey[] }, input: Readonly<Record<string, unknown>>): boolean {
  if (issue.code === 'custom' || issue.path.length === 0) return false;
  let value: unknown = input;
  for (const key of issue.path) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}

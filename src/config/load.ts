import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../domain/errors';
import { baseUrlProblem } from './base-url';
import { configSchema, type Config } from './schema';
import { liveLimitsError } from './live-limits';
import { paperSourceError } from './paper-source';
import { orderRegionError } from './region-check';
import { redisWhereError, usesRedis } from './redis-target';

/** Keys that would put a secret into a config file. Secrets come only from the environment or files. */
const SECRET_KEY = /^(api[_-]?key|api[_-]?secret|secret|password|token|private[_-]?key)$/i;

/** Environment variables with a fixed meaning, besides the generic TRADEBOT_CONFIG__SECTION__KEY form. */
const ENV_ALIASES: Readonly<Record<string, readonly string[]>> = {
  TRADEBOT_MODE: ['mode'],
  TRADEBOT_REDIS_URL: ['redis', 'url'],
  TRADEBOT_REDIS_PREFIX: ['redis', 'keyPrefix'],
  TRADEBOT_REDIS_SENTINELS: ['redis', 'sentinels'],
  TRADEBOT_REDIS_SENTINEL_NAME: ['redis', 'sentinelName'],
  TRADEBOT_REDIS_CLUSTER_NODES: ['redis', 'clusterNodes'],
  TRADEBOT_REDIS_TLS: ['redis', 'tls'],
  TRADEBOT_BASE_URL: ['exchange', 'baseUrl'],
  TRADEBOT_EU_BASE_URL: ['exchange', 'euBaseUrl'],
  TRADEBOT_LOG_LEVEL: ['log', 'level'],
  TRADEBOT_METRICS_PORT: ['metrics', 'port'],
  TRADEBOT_CONSOLE_PORT: ['console', 'port'],
  TRADEBOT_PAPER_SPEED: ['paper', 'speed'],
};
const GENERIC_PREFIX = 'TRADEBOT_CONFIG__';

export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
export type FrozenConfig = DeepReadonly<Config>;

/**
 * Reads a YAML (or JSON) config file, applies TRADEBOT_* environment overrides, validates it once
 * and returns it deep-frozen. Any problem throws ConfigError naming the key path: the daemon refuses
 * to start rather than run with a guess.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): FrozenConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`config file ${file} cannot be read: ${(error as Error).message}`, { file, path: '' });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(error as Error).message}`, { file, path: '' });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`config file ${file} must hold a mapping of settings at its top level`, { file, path: '' });
  }
  return parseConfig(raw as Record<string, unknown>, env, file);
}

/** Validates an already-parsed config object (the same rules as loadConfig). */
export function parseConfig(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env, file = '<inline>'): FrozenConfig {
  rejectSecrets(raw, [], file);
  rejectRedisPassword(raw, file);
  const merged = structuredClone(raw);
  applyEnvOverrides(merged, env, file);
  applyRedisUrlFile(merged, env, file);
  const result = configSchema.safeParse(merged);
  if (!result.success) throw configErrorFromZod(result.error, file);
  const config = result.data;
  const redisError = redisWhereError(config.redis, file);
  if (redisError !== undefined) throw redisError;
  if (config.mode === 'live' && !usesRedis(config)) {
    throw new ConfigError(`${file}: redis.url: live mode needs Redis (set TRADEBOT_REDIS_URL, or TRADEBOT_REDIS_SENTINELS with TRADEBOT_REDIS_SENTINEL_NAME, or TRADEBOT_REDIS_CLUSTER_NODES); order state must survive restarts`, {
      file,
      path: 'redis.url',
    });
  }
  for (const key of ['baseUrl', 'euBaseUrl'] as const) {
    const url = config.exchange[key];
    const problem = url === undefined ? undefined : baseUrlProblem(url);
    // Paper mode talks to its embedded simulator; only live mode sends the real key to these URLs.
    if (problem !== undefined && (config.mode === 'live' || !/^https?:/.test(url!))) {
      throw new ConfigError(`${file}: exchange.${key}: ${problem}`, { file, path: `exchange.${key}` });
    }
  }
  // A running simulator gets the real key, signed payloads and (over its WebSocket twin, same scheme)
  // the stream token: the same https-or-loopback rule as the venue, in every mode.
  const paperUrl = config.paper?.exchangeUrl;
  const paperUrlProblem = paperUrl === undefined ? undefined : baseUrlProblem(paperUrl);
  if (paperUrlProblem !== undefined) {
    throw new ConfigError(`${file}: paper.exchangeUrl: ${paperUrlProblem}`, { file, path: 'paper.exchangeUrl' });
  }
  const regionError = orderRegionError(config, file);
  if (regionError !== undefined) throw regionError;
  const limitsError = liveLimitsError(config, file);
  if (limitsError !== undefined) throw limitsError;
  // A guardrail for a strategy that does not run is a typo that would leave the one meant unguarded.
  const enabled = new Set(config.strategies.enabled.map((s) => s.name));
  const stray = Object.keys(config.risk.guardrails.strategies).filter((name) => !enabled.has(name));
  if (stray.length > 0) {
    throw new ConfigError(`${file}: risk.guardrails.strategies.${stray[0]}: no enabled strategy has this name (enabled: ${[...enabled].join(', ')})`, { file, path: `risk.guardrails.strategies.${stray[0]}` });
  }
  if (config.mode === 'paper' && !config.paper) {
    throw new ConfigError(`${file}: paper: paper mode needs a "paper" section (markets with candle files, balances)`, {
      file,
      path: 'paper',
    });
  }
  const paperError = config.mode === 'paper' ? paperSourceError(config.paper, file) : undefined;
  if (paperError !== undefined) throw paperError;
  return deepFreeze(config) as FrozenConfig;
}

/**
 * The `redis` section from the environment alone, for commands run without a config file (`tradebot
 * api`): the daemon's variables (TRADEBOT_REDIS_URL[_FILE], _SENTINELS with _SENTINEL_NAME,
 * _CLUSTER_NODES, _TLS, _PREFIX, TRADEBOT_CONFIG__REDIS__*) and checks, so a deployment that finds
 * Redis through sentinels or a cluster is found the same way, never silently not at all.
 */
export function redisSectionFromEnv(env: NodeJS.ProcessEnv): FrozenConfig['redis'] {
  const file = '<environment>';
  const redisEnv = Object.fromEntries(Object.entries(env).filter(([name]) => ENV_ALIASES[name]?.[0] === 'redis' || name.startsWith(`${GENERIC_PREFIX}REDIS__`)));
  const merged: Record<string, unknown> = {};
  applyEnvOverrides(merged, redisEnv, file);
  applyRedisUrlFile(merged, env, file);
  const result = redisOnly.safeParse({ redis: merged['redis'] ?? {} });
  if (!result.success) throw configErrorFromZod(result.error, file);
  const error = redisWhereError(result.data.redis, file);
  if (error !== undefined) throw error;
  return deepFreeze(result.data.redis) as FrozenConfig['redis'];
}

const redisOnly = z.strictObject({ redis: configSchema.shape.redis });

function rejectSecrets(node: unknown, path: string[], file: string): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    const here = [...path, key];
    if (SECRET_KEY.test(key)) {
      throw new ConfigError(
        `${file}: ${here.join('.')}: secrets are not allowed in config files; use TRADEBOT_API_KEY / TRADEBOT_API_SECRET ` +
          'or TRADEBOT_API_KEY_FILE / TRADEBOT_API_SECRET_FILE',
        { file, path: here.join('.') },
      );
    }
    rejectSecrets(value, here, file);
  }
}

/**
 * A Redis URL with a password (`redis://:pw@host` or `redis://user:pw@host`) does not belong in a
 * config file, which is copied, committed and mounted into ConfigMaps.
 */
function rejectRedisPassword(raw: Record<string, unknown>, file: string): void {
  const redis = raw['redis'];
  const url = redis !== null && typeof redis === 'object' ? (redis as Record<string, unknown>)['url'] : undefined;
  if (typeof url !== 'string') return;
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return; // the schema reports the malformed URL
  }
  if (password !== '') {
    throw new ConfigError(
      `${file}: redis.url: a Redis password in the config file is refused; remove redis.url from the file and set ` +
        'TRADEBOT_REDIS_URL_FILE (a file holding the URL, readable by the daemon only) or TRADEBOT_REDIS_URL',
      { file, path: 'redis.url' },
    );
  }
}

/** TRADEBOT_REDIS_URL_FILE: the Redis URL (which may hold a password) read from a file, like the API secret. */
function applyRedisUrlFile(target: Record<string, unknown>, env: NodeJS.ProcessEnv, file: string): void {
  const urlFile = env['TRADEBOT_REDIS_URL_FILE'];
  if (urlFile === undefined) return;
  if (env['TRADEBOT_REDIS_URL'] !== undefined) {
    throw new ConfigError('TRADEBOT_REDIS_URL_FILE: set either TRADEBOT_REDIS_URL or TRADEBOT_REDIS_URL_FILE, not both', { file, path: 'TRADEBOT_REDIS_URL_FILE' });
  }
  let text: string;
  try {
    text = readFileSync(urlFile, 'utf8');
  } catch (error) {
    // The path is not secret; the content is never echoed.
    throw new ConfigError(`TRADEBOT_REDIS_URL_FILE (${urlFile}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { file, path: 'TRADEBOT_REDIS_URL_FILE' });
  }
  const url = text.trim();
  if (url === '') throw new ConfigError('TRADEBOT_REDIS_URL_FILE: the file is empty', { file, path: 'TRADEBOT_REDIS_URL_FILE' });
  setPath(target, ['redis', 'url'], url);
}

function applyEnvOverrides(target: Record<string, unknown>, env: NodeJS.ProcessEnv, file: string): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    let path = ENV_ALIASES[name];
    if (!path && name.startsWith(GENERIC_PREFIX)) {
      path = name.slice(GENERIC_PREFIX.length).split('__').filter(Boolean).map(screamingToCamel);
    }
    if (!path || path.length === 0) continue;
    if (path.some((segment) => SECRET_KEY.test(segment))) {
      throw new ConfigError(`${name}: secrets are set with TRADEBOT_API_KEY / TRADEBOT_API_SECRET, not config overrides`, {
        file,
        path: path.join('.'),
      });
    }
    setPath(target, path, parseEnvValue(value));
  }
}

function screamingToCamel(segment: string): string {
  return segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Numbers, booleans and JSON arrays/objects are typed; anything else stays a string. */
function parseEnvValue(value: string): unknown {
  const trimmed = value.trim();
  if (/^(true|false|-?\d+(\.\d+)?|\[.*\]|\{.*\})$/s.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return value;
    }
  }
  return value;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

/** Settings that no longer exist, and what took their place (said instead of "unknown setting"). */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  'exchange.requestFieldStyle':
    'removed: replaced by exchange.dialect (venue = the exchange\'s documented wire, camelCase ids, the default; spec = the spellings of exchange-api.md, snake_case ids)',
  'exchange.ocoListPath':
    'removed: replaced by exchange.dialect (venue lists OCOs at /api/v4/oco-orders, spec at /api/v4/orders/oco)',
};

function configErrorFromZod(error: z.ZodError, file: string): ConfigError {
  const problems = error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code !== 'unrecognized_keys') return [{ path: base || '(top level)', message: issue.message }];
    return issue.keys.map((k) => {
      const path = base ? `${base}.${k}` : k;
      return { path, message: REPLACED_KEYS[path] ?? 'unknown setting (check the spelling)' };
    });
  });
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`).join('\n');
  return new ConfigError(`invalid config ${file}:\n${lines}`, { file, path: problems[0]?.path ?? '', problems });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

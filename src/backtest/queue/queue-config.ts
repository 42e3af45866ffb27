import { readFileSync } from 'node:fs';
import { readEnvOrFile } from '../../config/credentials';
import { HOST_PORT } from '../../config/redis-target';
import { Secret } from '../../config/secret';
import { SweepQueueError, TradebotError } from '../../domain/errors';
import type { RedisOptions } from 'bullmq';
import { sentinelOptions, type HostPort, type RedisTarget } from '../../store/redis';

/** The BullMQ queue every sweep chunk and parent job goes to. */
export const SWEEP_QUEUE_NAME = 'sweeps';

/**
 * Where distributed sweeps live: the queue Redis (TRADEBOT_QUEUE_REDIS_URL or _FILE, or its primary
 * found through sentinels: TRADEBOT_QUEUE_REDIS_SENTINELS with _SENTINEL_NAME; apart from the live
 * bot's Redis: a sweep may fill memory and must run with `noeviction`, which a cache-like Redis
 * may not) and the key prefix (TRADEBOT_QUEUE_PREFIX, default `tradebot-queue`), so several users
 * or test runs can share one server.
 */
export interface QueueConfig {
  /** Holds passwords: revealed only to connect, never printed (`where` is). */
  readonly target: Secret<QueueTarget>;
  /** Where the queue is, without user or password, for messages. */
  readonly where: string;
  readonly prefix: string;
}

/** The queue Redis: one server, or a Sentinel master group (BullMQ cannot use a Cluster without hash-tagged prefixes). */
export type QueueTarget = Exclude<RedisTarget, { kind: 'cluster' }>;

/** Every TRADEBOT_QUEUE_* variable there is: any other (a typo of one) is refused, not ignored. */
const QUEUE_VARIABLES = new Set(['PREFIX', 'REDIS_URL', 'REDIS_URL_FILE', 'REDIS_SENTINELS', 'REDIS_SENTINEL_NAME', 'REDIS_PASSWORD',
  'REDIS_PASSWORD_FILE', 'REDIS_SENTINEL_PASSWORD', 'REDIS_SENTINEL_PASSWORD_FILE', 'REDIS_TLS'].map((v) => `TRADEBOT_QUEUE_${v}`));

export function queueConfigFromEnv(env: NodeJS.ProcessEnv = process.env): QueueConfig {
  const unknown = Object.keys(env).filter((name) => name.startsWith('TRADEBOT_QUEUE_') && !QUEUE_VARIABLES.has(name));
  if (unknown.length > 0) {
    throw new SweepQueueError(`unknown variable ${unknown.join(', ')}: the queue reads ${[...QUEUE_VARIABLES].join(', ')}`, { field: unknown[0] as string });
  }
  const prefix = queuePrefix(env);
  const sentinels = env['TRADEBOT_QUEUE_REDIS_SENTINELS'];
  const name = env['TRADEBOT_QUEUE_REDIS_SENTINEL_NAME'];
  if (sentinels !== undefined || name !== undefined) return sentinelQueue(env, sentinels, name, prefix);
  const url = queueUrlFromEnv(env);
  if (url === undefined || url === '') {
    throw new SweepQueueError('distributed sweeps need the queue Redis: set TRADEBOT_QUEUE_REDIS_URL (e.g. redis://queue-redis:6379/0) or TRADEBOT_QUEUE_REDIS_URL_FILE, or TRADEBOT_QUEUE_REDIS_SENTINELS with TRADEBOT_QUEUE_REDIS_SENTINEL_NAME; a Redis kept apart from the live bot\'s', { field: 'TRADEBOT_QUEUE_REDIS_URL' });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The text may hold a password: never echo it.
    throw new SweepQueueError('TRADEBOT_QUEUE_REDIS_URL is not a URL (expected redis://[user:password@]host:port[/db])', { field: 'TRADEBOT_QUEUE_REDIS_URL' });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new SweepQueueError(`TRADEBOT_QUEUE_REDIS_URL: expected redis:// or rediss://, got ${parsed.protocol}//`, { field: 'TRADEBOT_QUEUE_REDIS_URL' });
  }
  return { target: new Secret<QueueTarget>({ kind: 'url', url }), where: `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`, prefix };
}

function queuePrefix(env: NodeJS.ProcessEnv): string {
  const prefix = env['TRADEBOT_QUEUE_PREFIX'] ?? 'tradebot-queue';
  if (!/^[A-Za-z0-9_{}.-]{1,64}$/.test(prefix)) {
    throw new SweepQueueError(`TRADEBOT_QUEUE_PREFIX: 1 to 64 letters, digits, "_", "-", ".", "{", "}"; got "${prefix}"`, { field: 'TRADEBOT_QUEUE_PREFIX' });
  }
  return prefix;
}

/** The daemon's Sentinel form (docs/redis.md) under TRADEBOT_QUEUE_REDIS_*: sentinels, master group, passwords, TLS. */
function sentinelQueue(env: NodeJS.ProcessEnv, list: string | undefined, name: string | undefined, prefix: string): QueueConfig {
  const field = (f: string): string => `TRADEBOT_QUEUE_REDIS_${f}`;
  if (queueUrlFromEnv(env) !== undefined) throw new SweepQueueError(`${field('URL')} and ${field('SENTINELS')} are set: say where the queue Redis is one way`, { field: field('SENTINELS') });
  if (list === undefined) throw new SweepQueueError(`${field('SENTINEL_NAME')} is set without ${field('SENTINELS')} (host:port,host:port,...)`, { field: field('SENTINELS') });
  if (name === undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new SweepQueueError(`${field('SENTINEL_NAME')}: the master group the sentinels monitor (letters, digits, _ . -), required with ${field('SENTINELS')}`, { field: field('SENTINEL_NAME') });
  }
  const sentinels = list.split(',').map((x) => x.trim()).filter((x) => x !== '').map((text) => queueHostPort(text, field('SENTINELS')));
  if (sentinels.length === 0) throw new SweepQueueError(`${field('SENTINELS')}: at least one host:port`, { field: field('SENTINELS') });
  const tlsText = env[field('TLS')] ?? 'false';
  if (tlsText !== 'true' && tlsText !== 'false') throw new SweepQueueError(`${field('TLS')}: true or false, got "${tlsText}"`, { field: field('TLS') });
  const target: QueueTarget = {
    kind: 'sentinel', sentinels, name, tls: tlsText === 'true',
    password: secretFromEnv(env, field('PASSWORD')), sentinelPassword: secretFromEnv(env, field('SENTINEL_PASSWORD')),
  };
  return { target: new Secret(target), where: `sentinel ${name} at ${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`, prefix };
}

function queueHostPort(text: string, field: string): HostPort {
  const m = HOST_PORT.exec(text);
  const port = Number(m?.[2]);
  if (m === null || port < 1 || port > 65535) throw new SweepQueueError(`${field}: expected host:port, got "${text}"`, { field });
  return { host: m[1] as string, port };
}

/** A password from the variable or its _FILE, as a SweepQueueError naming the variable when unreadable. */
function secretFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  try {
    return readEnvOrFile(env, name);
  } catch (err) {
    throw new SweepQueueError(err instanceof TradebotError ? err.message : `${name}: unreadable`, { field: name });
  }
}

/**
 * TRADEBOT_QUEUE_REDIS_URL, or TRADEBOT_QUEUE_REDIS_URL_FILE naming a file that holds it (as the
 * daemon's TRADEBOT_REDIS_URL_FILE: under pm2 an environment variable with a password would sit in
 * `pm2 jlist` and dump.pm2).
 */
function queueUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const file = env['TRADEBOT_QUEUE_REDIS_URL_FILE'];
  if (file === undefined || file === '') return env['TRADEBOT_QUEUE_REDIS_URL'];
  if (env['TRADEBOT_QUEUE_REDIS_URL'] !== undefined && env['TRADEBOT_QUEUE_REDIS_URL'] !== '') {
    throw new SweepQueueError('set either TRADEBOT_QUEUE_REDIS_URL or TRADEBOT_QUEUE_REDIS_URL_FILE, not both', { field: 'TRADEBOT_QUEUE_REDIS_URL_FILE' });
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // The path is not secret; the content is never echoed.
    throw new SweepQueueError(`TRADEBOT_QUEUE_REDIS_URL_FILE (${file}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, { field: 'TRADEBOT_QUEUE_REDIS_URL_FILE' });
  }
  const url = text.trim();
  if (url === '') throw new SweepQueueError(`TRADEBOT_QUEUE_REDIS_URL_FILE (${file}) is empty`, { field: 'TRADEBOT_QUEUE_REDIS_URL_FILE' });
  return url;
}

/**
 * BullMQ connection options: BullMQ makes its own ioredis connections from them (the project's
 * ioredis, a peer dependency). `maxRetriesPerRequest: null` as BullMQ requires: a blocking
 * worker connection must wait through a reconnect instead of failing its pending command. Through
 * sentinels, a write that reaches a demoted primary (READONLY) reconnects to the new one.
 */
export function bullConnection(config: QueueConfig): RedisOptions {
  const common: RedisOptions = { maxRetriesPerRequest: null, connectionName: 'tradebot-sweeps' };
  const t = config.target.reveal();
  if (t.kind === 'url') return { ...common, url: t.url };
  return { ...common, ...sentinelOptions(t) };
}

/** Error text safe to show: the queue URL and any password replaced by the redacted place. */
export function safeMessage(err: unknown, config: QueueConfig): string {
  const t = config.target.reveal();
  const secrets = t.kind === 'url' ? [t.url] : [t.password, t.sentinelPassword].flatMap((p) => (p === undefined ? [] : [p]));
  let text = err instanceof Error ? err.message : String(err);
  for (const secret of secrets) text = text.split(secret).join(t.kind === 'url' ? config.where : '***');
  return text;
}

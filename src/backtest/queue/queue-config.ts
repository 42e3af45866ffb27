import { readFileSync } from 'node:fs';
import { Secret } from '../../config/secret';
import { SweepQueueError } from '../../domain/errors';

/** The BullMQ queue every sweep chunk and parent job goes to. */
export const SWEEP_QUEUE_NAME = 'sweeps';

/**
 * Where distributed sweeps live: the queue Redis (TRADEBOT_QUEUE_REDIS_URL or _FILE, apart from the live
 * bot's Redis: a sweep may fill memory and must run with `noeviction`, which a cache-like Redis
 * may not) and the key prefix (TRADEBOT_QUEUE_PREFIX, default `tradebot-queue`), so several users
 * or test runs can share one server.
 */
export interface QueueConfig {
  /** The URL may hold a password: reveal it only to connect. */
  readonly url: Secret;
  /** The URL without user and password, for messages. */
  readonly where: string;
  readonly prefix: string;
}

export function queueConfigFromEnv(env: NodeJS.ProcessEnv = process.env): QueueConfig {
  const url = queueUrlFromEnv(env);
  if (url === undefined || url === '') {
    throw new SweepQueueError('distributed sweeps need the queue Redis: set TRADEBOT_QUEUE_REDIS_URL (e.g. redis://queue-redis:6379/0) or TRADEBOT_QUEUE_REDIS_URL_FILE, a Redis kept apart from the live bot\'s', { field: 'TRADEBOT_QUEUE_REDIS_URL' });
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
  const prefix = env['TRADEBOT_QUEUE_PREFIX'] ?? 'tradebot-queue';
  if (!/^[A-Za-z0-9_{}.-]{1,64}$/.test(prefix)) {
    throw new SweepQueueError(`TRADEBOT_QUEUE_PREFIX: 1 to 64 letters, digits, "_", "-", ".", "{", "}"; got "${prefix}"`, { field: 'TRADEBOT_QUEUE_PREFIX' });
  }
  return { url: new Secret(url), where: `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`, prefix };
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
 * worker connection must wait through a reconnect instead of failing its pending command.
 */
export function bullConnection(config: QueueConfig): { url: string; maxRetriesPerRequest: null; connectionName: string } {
  return { url: config.url.reveal(), maxRetriesPerRequest: null, connectionName: 'tradebot-sweeps' };
}

/** Error text safe to show: the queue URL (and so its password) replaced by its redacted form. */
export function safeMessage(err: unknown, config: QueueConfig): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split(config.url.reveal()).join(config.where);
}

import { SystemClock } from '../core/clock';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import type { NonceSource } from '../exchange/nonce/nonce-source';
import { redisSectionFromEnv } from '../config/load';
import { redisTargetOf } from '../config/redis-target';
import { connectRedis, connectTo } from '../store/redis';
import { RedisNonceSource } from '../exchange/nonce/redis-nonce-source';

export interface CliNonceSource {
  readonly source: NonceSource;
  close(): Promise<void>;
}

/**
 * The nonce source of CLI commands. When the environment says where the daemon's Redis is, in any of
 * the daemon's forms (TRADEBOT_REDIS_URL or its _FILE, sentinels, cluster nodes: missing one would
 * silently fall back to in-process nonces), it is the daemon's own allocator (same key prefix,
 * TRADEBOT_REDIS_PREFIX), so an operator's manual call can never reuse or undercut a nonce of the
 * running daemon on the same API key; otherwise an in-process one.
 */
export async function createNonceSource(env: NodeJS.ProcessEnv = process.env): Promise<CliNonceSource> {
  const section = redisSectionFromEnv(env);
  const target = redisTargetOf({ redis: section }, env);
  if (target === undefined) return { source: new InMemoryNonceSource({ clock: new SystemClock() }), close: async () => undefined };
  const redis = connectTo(target, { lazyConnect: true, connectionName: 'tradebot-cli' });
  try {
    await connectRedis(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const source = new RedisNonceSource({ redis, prefix: section.keyPrefix });
  return { source, close: async () => void (await redis.quit().catch(() => redis.disconnect())) };
}

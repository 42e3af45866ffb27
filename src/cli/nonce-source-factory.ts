import { readEnvOrFile } from '../config/credentials';
import { SystemClock } from '../core/clock';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import type { NonceSource } from '../exchange/nonce/nonce-source';
import { DEFAULT_KEY_PREFIX } from '../store/keys';
import { connectRedis, createRedis } from '../store/redis';
import { RedisNonceSource } from '../exchange/nonce/redis-nonce-source';

export interface CliNonceSource {
  readonly source: NonceSource;
  close(): Promise<void>;
}

/**
 * The nonce source of CLI commands. When TRADEBOT_REDIS_URL (or TRADEBOT_REDIS_URL_FILE, as the
 * daemon reads it: ignoring the file would silently fall back to in-process nonces) is set it is the daemon's own Redis
 * allocator (same key prefix, TRADEBOT_REDIS_PREFIX), so an operator's manual call can never reuse or
 * undercut a nonce of the running daemon on the same API key; otherwise an in-process one.
 */
export async function createNonceSource(env: NodeJS.ProcessEnv = process.env): Promise<CliNonceSource> {
  const url = readEnvOrFile(env, 'TRADEBOT_REDIS_URL');
  if (!url) return { source: new InMemoryNonceSource({ clock: new SystemClock() }), close: async () => undefined };
  const redis = createRedis(url, { lazyConnect: true, connectionName: 'tradebot-cli' });
  await connectRedis(redis);
  const source = new RedisNonceSource({ redis, prefix: env['TRADEBOT_REDIS_PREFIX'] ?? DEFAULT_KEY_PREFIX });
  return { source, close: async () => void (await redis.quit().catch(() => undefined)) };
}

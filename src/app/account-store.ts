import type { RedisConnection } from '../store/redis';
import { loadCredentials } from '../config/credentials';
import type { FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import { StoreKeys } from '../store/keys';
import { connectRedis, connectTo } from '../store/redis';
import { redisTargetOf } from '../config/redis-target';
import { PAPER_API_KEY } from './paper-key';

/** A short-lived Redis connection to one account's keys, for CLI commands (orders, pause, ...). */
export interface AccountStore {
  readonly redis: RedisConnection;
  readonly keys: StoreKeys;
  close(): Promise<void>;
}

/**
 * The store account a daemon with this config uses: derived from TRADEBOT_API_KEY in live mode and
 * against a running simulator (paper.exchangeUrl), from the fixed paper key with the embedded one,
 * under redis.keyPrefix, in the mode's namespace (storeKeysFor). The daemon (state-wiring.ts) and every
 * CLI command (orders, pause/resume, status, drift, reload/promote) call this one function, so they
 * find the same keys for the same config.
 */
export function accountKeys(config: FrozenConfig, env: NodeJS.ProcessEnv): StoreKeys {
  const ownKey = config.mode === 'live' || config.paper?.exchangeUrl !== undefined;
  const apiKey = ownKey ? loadCredentials(env, { required: true })!.apiKey : PAPER_API_KEY;
  return storeKeysFor(config.mode, apiKey, config.redis.keyPrefix);
}

/** Added to redis.keyPrefix in paper mode. */
export const PAPER_NAMESPACE = 'paper';

/**
 * Paper is paper: a paper deployment's keys live under `<prefix>:paper:{<account>}`, a live one's
 * under `<prefix>:{<account>}` exactly as before (moving them would orphan every live journal).
 * redis.keyPrefix cannot contain ':', so no live prefix can ever name the paper namespace: a paper
 * run pointed at the live Redis with the live key and prefix still gets its own journal, leases,
 * fences, nonce, rate-limit buckets, trading state, strategy versions and drift records (every key
 * is built from these StoreKeys; the Redis nonce allocator takes its prefix from them).
 */
export function storeKeysFor(mode: FrozenConfig['mode'], apiKey: string, keyPrefix: string): StoreKeys {
  return StoreKeys.forApiKey(apiKey, mode === 'live' ? keyPrefix : `${keyPrefix}:${PAPER_NAMESPACE}`);
}

/** Connects to the configured Redis; ConfigError when the config has none (the state then lives in the daemon's memory). */
export async function openAccountStore(config: FrozenConfig, env: NodeJS.ProcessEnv, purpose: string): Promise<AccountStore> {
  const target = redisTargetOf(config, env);
  if (target === undefined) {
    throw new ConfigError(`${purpose} needs Redis (set TRADEBOT_REDIS_URL, TRADEBOT_REDIS_SENTINELS or TRADEBOT_REDIS_CLUSTER_NODES): without it the daemon keeps this state in its own memory`, { path: 'redis.url' });
  }
  const keys = accountKeys(config, env);
  const redis = connectTo(target, { lazyConnect: true, connectionName: `tradebot-cli` });
  try {
    await connectRedis(redis, 5000);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return { redis, keys, close: async () => { await redis.quit().catch(() => redis.disconnect()); } };
}

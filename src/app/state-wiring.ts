import type Redis from 'ioredis';
import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { componentLogger, type Logger } from '../log/logger';
import type { StoreKeys } from '../store/keys';
import { connectRedis, createRedis } from '../store/redis';
import { memoryAdapters, redisAdapters, type StateAdapters } from './stores';

export interface OpenedState {
  readonly adapters: StateAdapters;
  /** The connection behind the adapters; undefined for the in-process store. */
  readonly redis: Redis | undefined;
}

/**
 * The daemon's state: Redis when `redis.url` is configured (required live), otherwise the
 * in-process adapters, with a warning that nothing survives the process. `onRedisUp` hears every
 * connection error (false) and the successful connect (true).
 */
export async function openState(config: FrozenConfig, keys: StoreKeys, clock: Clock, log: Logger, onRedisUp: (up: boolean) => void): Promise<OpenedState> {
  const util = config.exchange.limitUtilisation;
  const recordLimits = { retentionSec: config.drift.retentionDays * 86_400, maxEntries: config.drift.maxEntries };
  if (config.redis.url === undefined) {
    log.warn({}, 'no Redis configured (TRADEBOT_REDIS_URL): order journal, leases and nonces live in process memory; state is NOT durable and is lost when the process stops');
    return { adapters: memoryAdapters(keys, clock, util, recordLimits), redis: undefined };
  }
  const redisLog = componentLogger(log, 'redis');
  const redis = createRedis(config.redis.url, {
    lazyConnect: true, connectionName: 'tradebot-daemon',
    onError: (err) => { onRedisUp(false); redisLog.warn({ err: err.message }, 'Redis connection error'); },
  });
  try {
    await connectRedis(redis, 5000);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  onRedisUp(true);
  redisLog.info({ prefix: keys.prefix, account: keys.account }, 'Redis connected');
  return { adapters: redisAdapters(redis, keys, clock, util, recordLimits), redis };
}

import * as path from 'node:path';
import type Redis from 'ioredis';
import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { componentLogger, type Logger } from '../log/logger';
import type { StoreKeys } from '../store/keys';
import { connectRedis, createRedis } from '../store/redis';
import { FileTradingStateStore } from '../trading-state/file-trading-state-store';
import { memoryAdapters, redisAdapters, type StateAdapters } from './stores';
import { strategyStateDir } from './strategy-versions-wiring';

export interface OpenedState {
  readonly adapters: StateAdapters;
  /** The connection behind the adapters; undefined for the in-process store. */
  readonly redis: Redis | undefined;
}

/**
 * Where the trading state lives without Redis: files in the strategies' state directory, beside the
 * strategy control files, so `tradebot pause|resume` (run from the same directory) reaches the daemon.
 */
export function tradingStateDir(config: FrozenConfig, baseDir: string): string {
  return path.join(strategyStateDir(config, baseDir), 'control');
}

/**
 * The daemon's state: Redis when `redis.url` is configured (required live), otherwise the
 * in-process adapters, with a warning that nothing survives the process, except the trading state,
 * kept in a file (tradingStateDir) so the operator can pause and resume through it. `onRedisUp`
 * hears every connection error (false) and the successful connect (true).
 */
export async function openState(config: FrozenConfig, keys: StoreKeys, clocks: { wall: Clock; market: Clock }, log: Logger, onRedisUp: (up: boolean) => void, baseDir: string = process.cwd()): Promise<OpenedState> {
  const clock = clocks.wall;
  const util = config.exchange.limitUtilisation;
  const recordLimits = { retentionSec: config.drift.retentionDays * 86_400, maxEntries: config.drift.maxEntries };
  if (config.redis.url === undefined) {
    const dir = tradingStateDir(config, baseDir);
    log.warn({ tradingStateDir: dir }, 'no Redis configured (TRADEBOT_REDIS_URL): order journal, leases and nonces live in process memory; state is NOT durable and is lost when the process stops (the trading state is kept in a file)');
    return { adapters: { ...memoryAdapters(keys, clock, util, recordLimits, clocks.market), tradingState: new FileTradingStateStore(dir) }, redis: undefined };
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
  return { adapters: redisAdapters(redis, keys, clock, util, recordLimits, clocks.market), redis };
}

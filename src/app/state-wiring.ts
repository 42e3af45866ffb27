import type { Clock } from '../core/clock';
import { InMemoryGuardStateStore, RedisGuardStateStore, type GuardStateStore } from '../store/guard-state-store';
import { NotReadyError, StoreUnavailableError } from '../domain/errors';
import { componentLogger, type Logger } from '../log/logger';
import { recordStore } from '../metrics/registry';
import { connectRedis, connectTo, infoField, type RedisConnection } from '../store/redis';
import { redisTargetOf } from '../config/redis-target';
import { FileTradingStateStore } from '../trading-state/file-trading-state-store';
import { accountKeys } from './account-store';
import type { DaemonContext } from './daemon-context';
import { tradingStateDir } from './state-dirs';
import type { NonceSource } from '../exchange/nonce/nonce-source';
import { InMemoryRateLimiter } from '../limiter/in-memory-limiter';
import { LIMITS, type LimitTable } from '../limiter/limits';
import type { RateLimiter } from '../limiter/rate-limiter';
import { RedisTokenBucket } from '../limiter/redis-token-bucket';
import { InMemoryTradingStateStore, RedisTradingStateStore, type TradingStateStore } from '../trading-state/trading-state-store';
import type { StoreKeys } from '../store/keys';
import type { LeaseStore } from '../store/lease-store-port';
import { RedisLeaseStore } from '../store/lease-store';
import { InMemoryLeaseStore } from '../store/memory/in-memory-lease-store';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import { InMemoryOrderStore } from '../store/memory/in-memory-order-store';
import type { OrderStore } from '../store/order-store-port';
import { RedisOrderStore, type RedisOrderStoreOptions } from '../store/order-store';
import type { DeploymentLog, DeploymentLogLimits } from '../store/deployment-log-port';
import { RedisDeploymentLog } from '../store/deployment-log';
import { InMemoryDeploymentLog } from '../store/memory/in-memory-deployment-log';
import type { TrailingStore } from '../store/trailing-store-port';
import { RedisTrailingStore } from '../store/trailing-store';
import { InMemoryTrailingStore } from '../store/memory/in-memory-trailing-store';
import { RedisNonceSource } from '../exchange/nonce/redis-nonce-source';

export interface OpenedState {
  readonly state: StateAdapters;
  /** The connection behind the adapters; undefined for the in-process store. */
  readonly redis: RedisConnection | undefined;
}


/**
 * The daemon's state, under the account keys every CLI command derives too (account-store.ts: paper
 * keys never meet live ones): Redis when it is configured (a URL, sentinels or cluster nodes; required live), otherwise the
 * in-process adapters, with a warning that nothing survives the process, except the trading state,
 * kept in a file (tradingStateDir) so the operator can pause and resume through it.
 */
export async function openState(ctx: DaemonContext, signal: AbortSignal): Promise<OpenedState> {
  const { config, log } = ctx;
  const keys = accountKeys(config, ctx.env);
  const clock = ctx.wallClock;
  const util = config.exchange.limitUtilisation;
  const recordLimits = { retentionSec: config.drift.retentionDays * 86_400, maxEntries: config.drift.maxEntries };
  const target = redisTargetOf(config, ctx.env);
  if (target === undefined) {
    const dir = tradingStateDir(config, ctx.baseDir);
    log.warn({ tradingStateDir: dir }, 'no Redis configured (TRADEBOT_REDIS_URL): order journal, leases and nonces live in process memory; state is NOT durable and is lost when the process stops (the trading state is kept in a file)');
    recordStore(ctx.metrics, 'memory', keys.account);
    return { state: { ...memoryAdapters(keys, clock, util, recordLimits, ctx.marketNow), tradingState: new FileTradingStateStore(dir) }, redis: undefined };
  }
  const redisLog = componentLogger(log, 'redis');
  const redis = connectTo(target, {
    lazyConnect: true, connectionName: 'tradebot-daemon',
    onError: (err) => { ctx.onRedisUp(false); redisLog.warn({ err: err.message }, 'Redis connection error'); },
  });
  try {
    await waitForRedis(redis, config.redis.startupWaitSeconds, ctx, signal);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  ctx.onRedisUp(true);
  redisLog.info({ prefix: keys.prefix, account: keys.account }, 'Redis connected');
  recordStore(ctx.metrics, 'redis', keys.account);
  let closing = false;
  ctx.closers.push({ name: 'redis', close: () => { closing = true; return redis.quit().catch(() => redis.disconnect()); } });
  // ioredis reconnects by itself for ever; a client that ENDS outside a stop never comes back.
  redis.once('end', () => {
    if (!closing) ctx.fail(new StoreUnavailableError('Redis connection ended for good outside a stop (the client will not reconnect): exiting so the supervisor restarts the daemon', {}));
  });
  const acks = config.redis.replicaAcks > 0 ? { replicas: config.redis.replicaAcks, timeoutMs: config.redis.replicaAckTimeoutMs } : undefined;
  if (acks !== undefined) await warnFewReplicas(redis, acks.replicas, redisLog);
  return { state: redisAdapters(redis, keys, clock, util, recordLimits, ctx.marketNow, acks), redis };
}

/**
 * A daemon started while Redis is unreachable stays up and not ready (/readyz says so) and starts when
 * Redis answers: under Kubernetes repeated start-up exits become CrashLoopBackOff delays, and a running
 * daemon rides out the same outage. `startupWaitSeconds` bounds the wait; a stop ends it.
 */
async function waitForRedis(redis: RedisConnection, boundSeconds: number | undefined, ctx: DaemonContext, signal: AbortSignal): Promise<void> {
  const started = ctx.wallClock.nowMs();
  let reportedAt = Number.NEGATIVE_INFINITY;
  const log = componentLogger(ctx.log, 'redis');
  for (;;) {
    try {
      // Short attempts, so a stop or the bound is heard within a second.
      await connectRedis(redis, 1000);
      return;
    } catch (err) {
      const now = ctx.wallClock.nowMs();
      if (signal.aborted) throw new NotReadyError('shutdown requested while waiting for Redis at start-up', {});
      if (boundSeconds !== undefined && now - started >= boundSeconds * 1000) throw err;
      if (now - reportedAt < REDIS_WAIT_REPORT_MS) continue;
      reportedAt = now;
      log.warn({ waitedSeconds: Math.round((now - started) / 1000), ...(boundSeconds === undefined ? {} : { startupWaitSeconds: boundSeconds }) }, 'Redis not reachable at start-up: waiting, not ready (nothing is traded until it answers)');
    }
  }
}

/** Fewer replicas than redis.replicaAcks asks for refuse every order: said at start, loudly. */
async function warnFewReplicas(redis: RedisConnection, wanted: number, log: Logger): Promise<void> {
  const info = await redis.info('replication').catch(() => '');
  const connected = Number(infoField(info, 'connected_slaves') ?? 0);
  if (connected >= wanted) return;
  log.error({ replicaAcks: wanted, connectedReplicas: connected }, 'redis.replicaAcks asks for more replicas than the primary has connected: every order is refused (rule journal_replication) until enough replicas connect');
}

/** How often a start-up waiting for Redis says so. */
const REDIS_WAIT_REPORT_MS = 5000;

/** Every piece of state the daemon keeps outside the exchange: one adapter set, Redis or in-process. */
export interface StateAdapters {
  readonly durable: boolean;
  readonly keys: StoreKeys;
  readonly orders: OrderStore;
  readonly leases: LeaseStore;
  readonly nonces: NonceSource;
  readonly limiter: RateLimiter;
  readonly tradingState: TradingStateStore;
  /** What the daemon acted on, for the drift check. */
  readonly deployment: DeploymentLog;
  /** The guardrails' peaks, losses and stops in force. */
  readonly guards: GuardStateStore;
  /** The trailing stops' journal (legs and moves; docs/trailing-stops.md). */
  readonly trailing: TrailingStore;
}

/** Limits scaled by `exchange.limitUtilisation` for the in-process bucket (the Redis one has its own margin). */
function scaledLimits(utilisation: number): LimitTable {
  const out: Record<string, { capacity: number; windowMs: number }> = {};
  for (const [id, spec] of Object.entries(LIMITS)) out[id] = { capacity: Math.max(1, Math.floor(spec.capacity * utilisation)), windowMs: spec.windowMs };
  return out as unknown as LimitTable;
}

/** Redis adapters: the journal, leases, nonces and the token bucket are shared by every replica of the account. */
export function redisAdapters(
  redis: RedisConnection, keys: StoreKeys, clock: Clock, limitUtilisation: number, recordLimits?: DeploymentLogLimits, marketClock: Clock = clock,
  replicaAcks?: RedisOrderStoreOptions['replicaAcks'],
): StateAdapters {
  return {
    durable: true,
    keys,
    orders: new RedisOrderStore({ redis, keys, clock, marketClock, replicaAcks }),
    leases: new RedisLeaseStore(redis, keys),
    nonces: new RedisNonceSource({ redis, prefix: keys.prefix, clock }),
    limiter: new RedisTokenBucket({ redis, keys, safetyMargin: Math.min(0.97, limitUtilisation) }),
    tradingState: new RedisTradingStateStore(redis, keys),
    deployment: new RedisDeploymentLog(redis, keys, recordLimits),
    guards: new RedisGuardStateStore(redis, keys),
    trailing: new RedisTrailingStore(redis, keys),
  };
}

/** In-process adapters (paper mode without Redis): same contracts, nothing survives the process. */
export function memoryAdapters(keys: StoreKeys, clock: Clock, limitUtilisation: number, recordLimits?: DeploymentLogLimits, marketClock: Clock = clock): StateAdapters {
  const leases = new InMemoryLeaseStore(clock);
  return {
    durable: false,
    keys,
    orders: new InMemoryOrderStore(leases, clock, marketClock),
    leases,
    nonces: new InMemoryNonceSource({ clock }),
    limiter: new InMemoryRateLimiter({ limits: scaledLimits(limitUtilisation), clock }),
    tradingState: new InMemoryTradingStateStore(),
    deployment: new InMemoryDeploymentLog(recordLimits),
    guards: new InMemoryGuardStateStore(),
    trailing: new InMemoryTrailingStore(),
  };
}

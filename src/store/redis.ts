import Redis, { Cluster } from 'ioredis';
import { StoreUnavailableError, TradebotError } from '../domain/errors';
import { followSentinelSwitches } from './sentinel-switches';

/**
 * ioredis factory for every Redis user in tradebot (order journal, leases, nonces, rate limits).
 *
 * Money safety shapes the options: a command either runs now or fails now. It is never parked and
 * replayed later, because a late replay of "record this order as submitted" or "take a nonce"
 * could act on a world that moved on (the executor already gave up, a new owner holds the lease).
 * - `enableOfflineQueue: false`: while disconnected, commands reject at once ("Stream isn't
 *   writeable") instead of queueing until a reconnect that may come minutes later.
 * - `maxRetriesPerRequest: 0` and `autoResendUnfulfilledCommands: false`: a command in flight when
 *   the connection drops is rejected, not resent after the reconnect. Its effect is then unknown
 *   (it may have run): callers treat StoreUnavailableError as "unknown" and re-read, exactly like an
 *   exchange timeout, which every store script tolerates (create-if-absent, compare-and-set).
 * - `commandTimeout`: a hung server fails commands after a bound instead of stalling the executor.
 * - `retryStrategy` never gives up: the connection comes back by itself once Redis is back, with
 *   capped exponential backoff and jitter (so replicas do not reconnect in lockstep).
 */
export interface RedisFactoryOptions {
  /** Do not connect until `connectRedis()` is called. Commands before that fail (no offline queue). */
  readonly lazyConnect?: boolean;
  /** Per-command timeout in ms (default 2000). */
  readonly commandTimeoutMs?: number;
  /** TCP connect timeout in ms (default 2000). */
  readonly connectTimeoutMs?: number;
  /** Upper bound of the reconnect backoff in ms (default 2000). */
  readonly maxReconnectDelayMs?: number;
  /** CLIENT SETNAME, visible in CLIENT LIST (e.g. `tradebot-executor`). */
  readonly connectionName?: string;
  /** Called with connection errors (ioredis emits them as 'error' events; unhandled they would be logged to stderr). */
  readonly onError?: (err: Error) => void;
}

/** Backoff for reconnect attempt `times` (1-based): 50, 100, 200 ... capped, plus up to 20% jitter. */
export function reconnectDelayMs(times: number, maxDelayMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxDelayMs, 50 * 2 ** Math.min(times - 1, 16));
  return Math.round(base + base * 0.2 * random());
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Where the store's Redis is: one URL (standalone, `rediss://` for TLS), the primary of a master group
 * found through Sentinel (ioredis's own discovery, following its failovers), or a Redis Cluster.
 * Passwords are given here only at the point of connecting; the target is never logged.
 */
export type RedisTarget =
  | { readonly kind: 'url'; readonly url: string }
  | {
    readonly kind: 'sentinel'; readonly sentinels: readonly HostPort[]; readonly name: string;
    readonly password?: string | undefined; readonly sentinelPassword?: string | undefined; readonly tls: boolean;
  }
  | { readonly kind: 'cluster'; readonly nodes: readonly HostPort[]; readonly password?: string | undefined; readonly tls: boolean };

/** Any connection the stores use: one Redis (standalone or through Sentinel) or a Cluster. */
export type RedisConnection = Redis | Cluster;

/** The money-safety options of one connection (the header above), whatever the target. */
function connectionOptions(opts: RedisFactoryOptions) {
  const maxDelay = opts.maxReconnectDelayMs ?? 2000;
  return {
    lazyConnect: opts.lazyConnect ?? false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: opts.commandTimeoutMs ?? 2000,
    connectTimeout: opts.connectTimeoutMs ?? 2000,
    enableReadyCheck: true,
    retryStrategy: (times: number) => reconnectDelayMs(times, maxDelay),
    // Lua replies are arrays of integers and strings; RESP2 keeps their shapes plain everywhere.
    protocol: 2 as const,
    ...(opts.connectionName === undefined ? {} : { connectionName: opts.connectionName }),
  };
}

/** Where SCAN must look: each primary of a Cluster (a key lives on one), else the one connection. */
export function primariesOf(redis: RedisConnection): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/**
 * How ioredis finds and follows a Sentinel master group, for every client of one (the store's, and
 * BullMQ's for the sweep queue): the sentinels, both passwords, TLS to both.
 */
export function sentinelOptions(target: Extract<RedisTarget, { kind: 'sentinel' }>) {
  return {
    sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: target.name,
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
    // ioredis's own detector can end the client for good: followSentinelSwitches replaces it.
    failoverDetector: false,
    // Reached a demoted primary (a switch not yet heard): the write is refused, not run; find the primary again.
    reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 1 as const : false),
  };
}

/** A standalone or Sentinel-found Redis: `url` as before, or a target. */
export function createRedis(where: string | Exclude<RedisTarget, { kind: 'cluster' }>, opts: RedisFactoryOptions = {}): Redis {
  const base = connectionOptions(opts);
  const retry = (times: number): number => reconnectDelayMs(times, opts.maxReconnectDelayMs ?? 2000);
  const target = typeof where === 'string' ? { kind: 'url' as const, url: where } : where;
  const redis = target.kind === 'url' ? new Redis(target.url, base) : new Redis({ ...base, ...sentinelOptions(target), sentinelRetryStrategy: retry });
  // Without a listener ioredis prints every reconnect error; the owner decides how to log them.
  redis.on('error', opts.onError ?? (() => undefined));
  if (target.kind === 'sentinel') followSentinelSwitches(redis, target, retry);
  return redis;
}

/** A Redis Cluster with the same money-safety options on every node connection. */
export function createRedisCluster(target: Extract<RedisTarget, { kind: 'cluster' }>, opts: RedisFactoryOptions = {}): Cluster {
  const base = connectionOptions(opts);
  const cluster = new Cluster(target.nodes.map((n) => ({ host: n.host, port: n.port })), {
    lazyConnect: base.lazyConnect,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    clusterRetryStrategy: (times: number) => reconnectDelayMs(times, opts.maxReconnectDelayMs ?? 2000),
    redisOptions: {
      ...base, lazyConnect: false,
      ...(target.password === undefined ? {} : { password: target.password }),
      ...(target.tls ? { tls: {} } : {}),
    },
  });
  cluster.on('error', opts.onError ?? (() => undefined));
  return cluster;
}

/** The connection a target names: a Cluster for `cluster`, else one Redis. */
export function connectTo(target: RedisTarget, opts: RedisFactoryOptions = {}): RedisConnection {
  return target.kind === 'cluster' ? createRedisCluster(target, opts) : createRedis(target, opts);
}

/**
 * Resolves once the client is ready (connecting it first when it was created lazily). Rejects with
 * StoreUnavailableError after `timeoutMs`. Useful at start-up: with no offline queue, commands sent
 * before 'ready' fail.
 */
export async function connectRedis(redis: RedisConnection, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return;
  if (redis.status === 'end') throw new StoreUnavailableError('Redis connection was closed for good (quit/disconnect)', { status: redis.status });
  if (redis.status === 'wait') redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    // What went wrong, said with the timeout: a refused certificate or password reads very differently from silence.
    let lastError: string | undefined;
    const onError = (err: Error): void => { lastError = err.message; };
    const timer = setTimeout(() => {
      cleanup();
      const why = lastError === undefined ? '' : ` (last error: ${lastError})`;
      reject(new StoreUnavailableError(`Redis not ready within ${timeoutMs} ms${why}`, { status: redis.status }));
    }, timeoutMs);
    const onReady = (): void => {
      cleanup();
      resolve();
    };
    const onEnd = (): void => {
      cleanup();
      reject(new StoreUnavailableError('Redis connection ended before it was ready', { status: redis.status }));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('end', onEnd);
      redis.off('error', onError);
    };
    redis.once('ready', onReady);
    redis.once('end', onEnd);
    redis.on('error', onError);
  });
}

/** One field of an INFO reply (`name:value` lines), undefined when the reply has none. */
export function infoField(info: string, name: string): string | undefined {
  for (const line of info.split('\n')) {
    if (line.startsWith(`${name}:`)) return line.slice(name.length + 1).trim();
  }
  return undefined;
}

export interface RedisHealth {
  readonly ok: boolean;
  /** ioredis connection status (`ready`, `reconnecting`, ...). */
  readonly status: string;
  readonly latencyMs?: number;
  readonly error?: string;
}

/** PING with a bound; never throws (for /healthz and readiness probes). */
export async function checkRedisHealth(redis: RedisConnection, timeoutMs = 1000): Promise<RedisHealth> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`PING timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    const pong = await Promise.race([redis.ping(), timeout]);
    if (pong !== 'PONG') return { ok: false, status: redis.status, error: `unexpected PING reply ${String(pong)}` };
    return { ok: true, status: redis.status, latencyMs: performance.now() - started };
  } catch (err) {
    return { ok: false, status: redis.status, error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/**
 * Wraps anything a Redis call threw into StoreUnavailableError (errors of our own pass through).
 * The cause is kept; the message names the operation. After a write it means "effect unknown".
 */
export function storeError(err: unknown, operation: string): TradebotError {
  if (err instanceof TradebotError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StoreUnavailableError(`Redis ${operation} failed: ${message}`, { operation }, { cause: err });
}

/** Runs one Redis operation, converting transport and server errors into StoreUnavailableError. */
export async function withStore<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(err, operation);
  }
}

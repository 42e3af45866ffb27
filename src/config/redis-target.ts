import { ConfigError } from '../domain/errors';
import type { HostPort, RedisTarget } from '../store/redis';
import { readEnvOrFile } from './credentials';

/** The part of the config's `redis` section that says where Redis is. */
interface RedisSection {
  readonly url?: string | undefined;
  readonly sentinels?: readonly string[] | undefined;
  readonly sentinelName?: string | undefined;
  readonly clusterNodes?: readonly string[] | undefined;
  readonly tls: boolean;
}

/** Whether the store lives in Redis (a URL, sentinels or cluster nodes), else in process memory. */
export function usesRedis(config: { readonly redis: RedisSection }): boolean {
  const r = config.redis;
  return r.url !== undefined || r.sentinels !== undefined || r.clusterNodes !== undefined;
}

/** One way to say where Redis is: a URL, sentinels with their master group, or cluster nodes. */
export function redisWhereError(r: RedisSection, file: string): ConfigError | undefined {
  const given = [r.url === undefined ? [] : ['redis.url'], r.sentinels === undefined ? [] : ['redis.sentinels'], r.clusterNodes === undefined ? [] : ['redis.clusterNodes']].flat();
  const problem = given.length > 1 ? `${given.join(' and ')} are set: say where Redis is one way (TRADEBOT_REDIS_URL, TRADEBOT_REDIS_SENTINELS or TRADEBOT_REDIS_CLUSTER_NODES)`
    : r.sentinels !== undefined && r.sentinelName === undefined ? 'redis.sentinelName: required with redis.sentinels (TRADEBOT_REDIS_SENTINEL_NAME: the master group name the sentinels monitor)'
      : r.sentinels === undefined && r.sentinelName !== undefined ? 'redis.sentinelName: set without redis.sentinels (TRADEBOT_REDIS_SENTINELS)'
        : r.url !== undefined && r.tls ? 'redis.tls: a URL says TLS with rediss://' : undefined;
  return problem === undefined ? undefined : new ConfigError(`${file}: ${problem}`, { file, path: problem.split(':')[0] ?? 'redis' });
}

/**
 * The store's Redis for `config`, with the passwords of the sentinel and cluster forms read now from
 * the environment or files (TRADEBOT_REDIS_PASSWORD[_FILE], TRADEBOT_REDIS_SENTINEL_PASSWORD[_FILE]);
 * a URL carries its own. Undefined without Redis.
 */
export function redisTargetOf(config: { readonly redis: RedisSection }, env: NodeJS.ProcessEnv): RedisTarget | undefined {
  const r = config.redis;
  if (r.url !== undefined) return { kind: 'url', url: r.url };
  const password = readEnvOrFile(env, 'TRADEBOT_REDIS_PASSWORD');
  if (r.sentinels !== undefined) {
    return {
      kind: 'sentinel', sentinels: r.sentinels.map(hostPort), name: r.sentinelName as string, password,
      sentinelPassword: readEnvOrFile(env, 'TRADEBOT_REDIS_SENTINEL_PASSWORD'), tls: r.tls,
    };
  }
  if (r.clusterNodes !== undefined) return { kind: 'cluster', nodes: r.clusterNodes.map(hostPort), password, tls: r.tls };
  return undefined;
}

/** `host:port` as the settings give sentinels and cluster nodes. */
export const HOST_PORT = /^([A-Za-z0-9.-]+):(\d{1,5})$/;

/** The host and port of `text` (already checked against HOST_PORT by the config schema). */
function hostPort(text: string): HostPort {
  const i = text.lastIndexOf(':');
  return { host: text.slice(0, i), port: Number(text.slice(i + 1)) };
}

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseConfig, redisSectionFromEnv } from '../../../src/config/load';
import { redisTargetOf, usesRedis } from '../../../src/config/redis-target';

const paper = {
  mode: 'paper', strategies: { enabled: [{ name: 'sma-cross' }] },
  paper: { markets: [{ market: 'BTC_USDT', data: 'config/data/btc_usdt-1m-sample.csv' }], balances: { USDT: '1000' } },
};

describe('where Redis is: a URL, sentinels or cluster nodes (issue #32)', () => {
  test('sentinels and their master name from the environment, passwords from a file, TLS', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tb-redis-target-'));
    writeFileSync(path.join(dir, 'pw'), 's3cret\n');
    const env = {
      TRADEBOT_REDIS_SENTINELS: 'sentinel-0:26379, sentinel-1:26379,sentinel-2:26379', TRADEBOT_REDIS_SENTINEL_NAME: 'tradebot',
      TRADEBOT_REDIS_PASSWORD_FILE: path.join(dir, 'pw'), TRADEBOT_REDIS_SENTINEL_PASSWORD: 'sent', TRADEBOT_REDIS_TLS: 'true',
    };
    const config = parseConfig(paper, env);
    expect(usesRedis(config)).toBe(true);
    expect(redisTargetOf(config, env)).toEqual({
      kind: 'sentinel', name: 'tradebot', password: 's3cret', sentinelPassword: 'sent', tls: true,
      sentinels: [{ host: 'sentinel-0', port: 26379 }, { host: 'sentinel-1', port: 26379 }, { host: 'sentinel-2', port: 26379 }],
    });
  });

  test('cluster nodes; no password given is none', () => {
    const env = { TRADEBOT_REDIS_CLUSTER_NODES: 'redis-0:6379,redis-1:6379' };
    expect(redisTargetOf(parseConfig(paper, env), env)).toEqual({ kind: 'cluster', nodes: [{ host: 'redis-0', port: 6379 }, { host: 'redis-1', port: 6379 }], password: undefined, tls: false });
  });

  test('no Redis at all: the in-process store', () => {
    const config = parseConfig(paper, {});
    expect([usesRedis(config), redisTargetOf(config, {})]).toEqual([false, undefined]);
  });

  test.each([
    [{ TRADEBOT_REDIS_URL: 'redis://r:6379', TRADEBOT_REDIS_SENTINELS: 's:26379', TRADEBOT_REDIS_SENTINEL_NAME: 'm' }, 'redis.url and redis.sentinels are set: say where Redis is one way'],
    [{ TRADEBOT_REDIS_SENTINELS: 's:26379' }, 'redis.sentinelName: required with redis.sentinels'],
    [{ TRADEBOT_REDIS_SENTINEL_NAME: 'm' }, 'redis.sentinelName: set without redis.sentinels'],
    [{ TRADEBOT_REDIS_URL: 'redis://r:6379', TRADEBOT_REDIS_TLS: 'true' }, 'redis.tls: a URL says TLS with rediss://'],
    [{ TRADEBOT_REDIS_CLUSTER_NODES: 'redis-0' }, 'redis.clusterNodes.0: expected host:port'],
    [{ TRADEBOT_REDIS_SENTINELS: '', TRADEBOT_REDIS_SENTINEL_NAME: 'm' }, 'redis.sentinels: at least one host:port'],
  ])('refused: %j', (env, message) => {
    expect(() => parseConfig(paper, env)).toThrow(message);
  });

  test('a password in the environment and its _FILE at once is refused', () => {
    const env = { TRADEBOT_REDIS_CLUSTER_NODES: 'redis-0:6379', TRADEBOT_REDIS_PASSWORD: 'a', TRADEBOT_REDIS_PASSWORD_FILE: '/nonexistent' };
    expect(() => redisTargetOf(parseConfig(paper, env), env)).toThrow('set either TRADEBOT_REDIS_PASSWORD or TRADEBOT_REDIS_PASSWORD_FILE, not both');
  });

  describe('from the environment alone (`tradebot api` has no config file)', () => {
    test('each form reads as the daemon reads it, with the key prefix', () => {
      const env = { TRADEBOT_REDIS_SENTINELS: 's0:26379,s1:26379', TRADEBOT_REDIS_SENTINEL_NAME: 'tb', TRADEBOT_REDIS_PREFIX: 'desk', TRADEBOT_API_KEY: 'k' };
      const section = redisSectionFromEnv(env);
      expect(section.keyPrefix).toBe('desk');
      expect(redisTargetOf({ redis: section }, env)).toMatchObject({ kind: 'sentinel', name: 'tb', sentinels: [{ host: 's0', port: 26379 }, { host: 's1', port: 26379 }] });
      const cluster = { TRADEBOT_REDIS_CLUSTER_NODES: 'r0:6379' };
      expect(redisTargetOf({ redis: redisSectionFromEnv(cluster) }, cluster)).toMatchObject({ kind: 'cluster' });
      expect(redisTargetOf({ redis: redisSectionFromEnv({}) }, {})).toBeUndefined();
    });

    test.each([
      [{ TRADEBOT_REDIS_SENTINELS: 's:26379' }, 'redis.sentinelName: required with redis.sentinels'],
      [{ TRADEBOT_REDIS_CLUSTER_NODES: 'redis-0' }, 'redis.clusterNodes.0: expected host:port'],
      [{ TRADEBOT_CONFIG__REDIS__SENTINAL_NAME: 'tb' }, 'sentinalName'],
      [{ TRADEBOT_REDIS_URL: 'redis://a:6379', TRADEBOT_REDIS_CLUSTER_NODES: 'r0:6379' }, 'redis.url and redis.clusterNodes are set'],
    ])('refused, naming the setting: %j', (env, message) => {
      expect(() => redisSectionFromEnv(env)).toThrow(message);
    });
  });
});

import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { connectRedis, createRedis, createRedisCluster, primariesOf, type HostPort, type RedisConnection } from '../../../src/store/redis';

/** The throwaway Redis of the test run (Jest globalSetup). */
export function testRedisUrl(): string {
  const url = process.env['TRADEBOT_TEST_REDIS_URL'];
  if (!url) throw new Error('TRADEBOT_TEST_REDIS_URL is not set (Jest globalSetup starts a throwaway Redis)');
  return url;
}

/** The run's throwaway 3-primary Cluster (Jest globalSetup). */
export function testClusterNodes(): HostPort[] {
  const nodes = process.env['TRADEBOT_TEST_REDIS_CLUSTER_NODES'];
  const failed = process.env['TRADEBOT_TEST_CLUSTER_FAILED'];
  if (!nodes) throw new Error(failed === undefined ? 'TRADEBOT_TEST_REDIS_CLUSTER_NODES is not set (Jest globalSetup starts a throwaway Cluster)' : `the run's throwaway Cluster did not start: ${failed}`);
  return nodes.split(',').map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) }));
}

/** Where a store suite runs: the run's standalone Redis, or its Cluster. */
export type TestTopology = 'standalone' | 'cluster';
export const TOPOLOGIES: readonly TestTopology[] = ['standalone', 'cluster'];

/** A unique key prefix per test, so parallel test files never see each other's keys. */
export function uniquePrefix(): string {
  return `tbtest:${randomUUID().slice(0, 8)}`;
}

/** Connections opened by a test, and the prefixes whose keys it must delete. */
export class RedisTestContext {
  private readonly clients: RedisConnection[] = [];
  private readonly prefixes: string[] = [];

  constructor(private readonly topology: TestTopology = 'standalone') {}

  async client(url: string = testRedisUrl()): Promise<Redis> {
    const redis = createRedis(url, { lazyConnect: true, maxReconnectDelayMs: 200 });
    this.clients.push(redis);
    await connectRedis(redis);
    return redis;
  }

  /** A connection to this context's topology (the store suites that run on both). */
  async connection(): Promise<RedisConnection> {
    if (this.topology === 'standalone') return this.client();
    const cluster = createRedisCluster({ kind: 'cluster', nodes: testClusterNodes(), tls: false }, { lazyConnect: true, maxReconnectDelayMs: 200 });
    this.clients.push(cluster);
    await connectRedis(cluster, 10_000);
    return cluster;
  }

  prefix(): string {
    const p = uniquePrefix();
    this.prefixes.push(p);
    return p;
  }

  /** As prefix(), in the form a daemon's config accepts (redis.keyPrefix allows no ':'). */
  configPrefix(name: string): string {
    const p = `${name}-${randomUUID().slice(0, 8)}`;
    this.prefixes.push(p);
    return p;
  }

  /** Deletes every key under the prefixes used (on each primary of the topology), then closes the connections. */
  async cleanup(): Promise<void> {
    if (this.prefixes.length > 0) {
      // A connection of its own: the test may have closed or broken the ones it used.
      const cleaner: RedisConnection = this.topology === 'standalone'
        ? createRedis(testRedisUrl(), { lazyConnect: true })
        : createRedisCluster({ kind: 'cluster', nodes: testClusterNodes(), tls: false }, { lazyConnect: true });
      try {
        await connectRedis(cleaner, 10_000);
        for (const node of primariesOf(cleaner)) {
          for (const prefix of this.prefixes) {
            let cursor = '0';
            do {
              const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
              cursor = next;
              // One DEL per key: a Cluster node refuses a DEL spanning hash slots.
              if (keys.length > 0) await keys.reduce((pipe, key) => pipe.del(key), node.pipeline()).exec();
            } while (cursor !== '0');
          }
        }
      } finally {
        cleaner.disconnect();
      }
    }
    for (const c of this.clients) c.disconnect();
    this.clients.length = 0;
    this.prefixes.length = 0;
  }
}

import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { connectRedis, createRedis } from '../../../src/store/redis';

/** The throwaway Redis of the test run (Jest globalSetup). */
export function testRedisUrl(): string {
  const url = process.env['TRADEBOT_TEST_REDIS_URL'];
  if (!url) throw new Error('TRADEBOT_TEST_REDIS_URL is not set (Jest globalSetup starts a throwaway Redis)');
  return url;
}

/** A unique key prefix per test, so parallel test files never see each other's keys. */
export function uniquePrefix(): string {
  return `tbtest:${randomUUID().slice(0, 8)}`;
}

/** Connections opened by a test, and the prefixes whose keys it must delete. */
export class RedisTestContext {
  private readonly clients: Redis[] = [];
  private readonly prefixes: string[] = [];

  async client(url: string = testRedisUrl()): Promise<Redis> {
    const redis = createRedis(url, { lazyConnect: true, maxReconnectDelayMs: 200 });
    this.clients.push(redis);
    await connectRedis(redis);
    return redis;
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

  /** Deletes every key under the prefixes used (on the shared test Redis), then closes the connections. */
  async cleanup(): Promise<void> {
    if (this.prefixes.length > 0) {
      // A connection of its own: the test may have closed or broken the ones it used.
      const cleaner = createRedis(testRedisUrl(), { lazyConnect: true });
      try {
        await connectRedis(cleaner);
        for (const prefix of this.prefixes) {
          let cursor = '0';
          do {
            const [next, keys] = await cleaner.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
            cursor = next;
            if (keys.length > 0) await cleaner.del(...keys);
          } while (cursor !== '0');
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

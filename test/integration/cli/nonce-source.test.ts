import { createNonceSource } from '../../../src/cli/nonce-source-factory';
import { StoreKeys } from '../../../src/store/keys';
import { connectRedis, createRedisCluster } from '../../../src/store/redis';
import { testClusterNodes } from '../store/redis-test-context';

// `tradebot api` signs with the daemon's nonce allocator wherever the daemon's Redis is: here a
// Cluster given only as TRADEBOT_REDIS_CLUSTER_NODES (it used to read TRADEBOT_REDIS_URL alone and
// fall back, silently, to in-process nonces that can undercut the daemon's).

test('with cluster nodes in the environment: the nonce comes from, and moves, the daemon\'s key', async () => {
  const nodes = testClusterNodes(); // the run's Cluster (Jest globalSetup)
  const env = { TRADEBOT_REDIS_CLUSTER_NODES: nodes.map((n) => `${n.host}:${n.port}`).join(','), TRADEBOT_REDIS_PREFIX: 'tbcli' };
  const key = StoreKeys.forApiKey('cli-key', 'tbcli').nonce();
  const redis = createRedisCluster({ kind: 'cluster', nodes, tls: false }, { lazyConnect: true });
  try {
    await connectRedis(redis, 10_000);
    const ahead = Date.now() + 10;
    await redis.set(key, String(ahead)); // the daemon's last nonce, just ahead of the clock
    const cli = await createNonceSource(env);
    const nonce = await cli.source.nextNonce('cli-key').finally(() => cli.close());
    expect(nonce).toBeGreaterThan(ahead);
    expect(Number(await redis.get(key))).toBe(nonce);
  } finally {
    redis.disconnect();
  }
});

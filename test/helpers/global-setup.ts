import { startThrowawayRedis, type ThrowawayRedis } from './redis-server';
import { startCluster, type ThrowawayCluster } from './redis-topology';
import { startOutputCapture } from './output-capture';
import { CHROMIUM, missingEnv, OPENSSL, PROMETHEUS, PROMTOOL, provideTool, REDIS_SERVER } from './system-tools';

// One throwaway Redis for the whole run, shared by the test workers through TRADEBOT_TEST_REDIS_URL.
// Each test isolates itself with its own key prefix. A URL given by the caller is used as is.
// The machine tools are provided here, once, before the workers start (apt-get is not run twice at
// once): a missing one is installed from Debian when we are root, or recorded as ONE line that
// the tests needing it fail with. Without Redis most of the suite cannot run: the run stops with
// that line.
export default async function globalSetup(): Promise<void> {
  // Every node child process of the run copies its output to a per-run directory that the
  // globalTeardown scans for test secrets (see output-capture.ts).
  startOutputCapture();
  for (const tool of [CHROMIUM, PROMTOOL, PROMETHEUS, OPENSSL]) {
    const missing = provideTool(tool);
    if (missing === undefined) delete process.env[missingEnv(tool)];
    else {
      process.env[missingEnv(tool)] = missing;
      process.stderr.write(`${missing}\n`);
    }
  }
  const missingRedis = provideTool(REDIS_SERVER);
  if (missingRedis !== undefined && !process.env['TRADEBOT_TEST_REDIS_URL']) throw new Error(missingRedis);
  if (!process.env['TRADEBOT_TEST_REDIS_URL']) {
    const redis: ThrowawayRedis = await startThrowawayRedis();
    process.env['TRADEBOT_TEST_REDIS_URL'] = redis.url;
    (globalThis as { __tradebotRedis?: ThrowawayRedis }).__tradebotRedis = redis;
  }
  // The store suites run on a 3-primary Cluster too (issue #32), one for the whole run.
  // A Cluster that cannot start fails the tests that use it (with the reason), not the whole run.
  if (missingRedis === undefined && !process.env['TRADEBOT_TEST_REDIS_CLUSTER_NODES']) {
    try {
      const cluster = await startCluster(3);
      process.env['TRADEBOT_TEST_REDIS_CLUSTER_NODES'] = cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
      (globalThis as { __tradebotCluster?: ThrowawayCluster }).__tradebotCluster = cluster;
    } catch (err) {
      process.env['TRADEBOT_TEST_CLUSTER_FAILED'] = err instanceof Error ? err.message : String(err);
    }
  }
}

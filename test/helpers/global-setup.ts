import { startThrowawayRedis, type ThrowawayRedis } from './redis-server';
import { startOutputCapture } from './output-capture';

// One throwaway Redis for the whole run, shared by the test workers through TRADEBOT_TEST_REDIS_URL.
// Each test isolates itself with its own key prefix. A URL given by the caller is used as is.
export default async function globalSetup(): Promise<void> {
  // Every node child process of the run copies its output to a per-run directory that the
  // globalTeardown scans for test secrets (see output-capture.ts).
  startOutputCapture();
  if (process.env['TRADEBOT_TEST_REDIS_URL']) return;
  const redis: ThrowawayRedis = await startThrowawayRedis();
  process.env['TRADEBOT_TEST_REDIS_URL'] = redis.url;
  (globalThis as { __tradebotRedis?: ThrowawayRedis }).__tradebotRedis = redis;
}

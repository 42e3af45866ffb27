import { finishOutputCapture } from './output-capture';
import type { ThrowawayRedis } from './redis-server';
import type { ThrowawayCluster } from './redis-topology';

export default async function globalTeardown(): Promise<void> {
  const redis = (globalThis as { __tradebotRedis?: ThrowawayRedis }).__tradebotRedis;
  if (redis) await redis.stop();
  await (globalThis as { __tradebotCluster?: ThrowawayCluster }).__tradebotCluster?.stop();
  // Last, after every test file: throws (failing the run) if any captured output holds a secret.
  finishOutputCapture();
}

import { finishOutputCapture } from './output-capture';
import type { ThrowawayRedis } from './redis-server';

export default async function globalTeardown(): Promise<void> {
  const redis = (globalThis as { __tradebotRedis?: ThrowawayRedis }).__tradebotRedis;
  if (redis) await redis.stop();
  // Last, after every test file: throws (failing the run) if any captured output holds a secret.
  finishOutputCapture();
}

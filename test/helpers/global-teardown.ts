import type { ThrowawayRedis } from './redis-server';

export default async function globalTeardown(): Promise<void> {
  const redis = (globalThis as { __tradebotRedis?: ThrowawayRedis }).__tradebotRedis;
  if (redis) await redis.stop();
}

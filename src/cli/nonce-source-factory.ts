import { SystemClock } from '../core/clock';
import { InMemoryNonceSource } from '../exchange/in-memory-nonce-source';
import type { NonceSource } from '../exchange/nonce-source';

/**
 * The nonce source of CLI commands. For now the in-process monotonic one; the Redis allocator (when
 * TRADEBOT_REDIS_URL is set, so the CLI never collides with a running daemon on the same key)
 * replaces the body of this function.
 */
export function createNonceSource(): NonceSource {
  return new InMemoryNonceSource(new SystemClock());
}

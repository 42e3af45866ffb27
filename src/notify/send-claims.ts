import type { StoreKeys } from '../store/keys';
import type { RedisConnection } from '../store/redis';

/**
 * Who sends an event on a channel. Every replica hears the same events with the same ids; before
 * sending, a replica claims (channel, id), and only the replica whose claim succeeded sends it.
 *
 * - `claimed`: send it.
 * - `taken`: another replica (or this process, for an event heard twice) has it: skip it.
 * - `unavailable`: the claim could not be asked (Redis down). The caller sends anyway: told twice
 *   (once per replica) is better than never told, and a halt is what Redis outages come with.
 *
 * A claimer that fails to deliver (retries spent) keeps its claim: the other replicas dropped the
 * event when their claims failed, so releasing it would help no one; the failure is counted and
 * logged instead. A claimer that dies between claiming and sending loses that event for that channel
 * (docs/notifications.md "Once across replicas").
 */
export type ClaimResult = 'claimed' | 'taken' | 'unavailable';

export interface SendClaims {
  claim(channel: string, eventId: string): Promise<ClaimResult>;
}

/** How long a claim is remembered: longer than any replica could hear the same event again. */
export const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

/** Claims in Redis: `SET <notificationSent key> 1 NX PX <ttl>`, one round trip. */
export class RedisSendClaims implements SendClaims {
  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: StoreKeys,
    private readonly ttlMs: number = CLAIM_TTL_MS,
  ) {}

  async claim(channel: string, eventId: string): Promise<ClaimResult> {
    try {
      // The connection fails commands at once while disconnected and after its command timeout when hung (store/redis.ts).
      const answer = await this.redis.set(this.keys.notificationSent(channel, eventId), '1', 'PX', this.ttlMs, 'NX');
      return answer === 'OK' ? 'claimed' : 'taken';
    } catch {
      return 'unavailable';
    }
  }
}

/** Without Redis (paper in one process): remembers the last `capacity` claims, oldest forgotten first. */
export class MemorySendClaims implements SendClaims {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  async claim(channel: string, eventId: string): Promise<ClaimResult> {
    const key = `${channel}\n${eventId}`;
    if (this.seen.has(key)) return 'taken';
    this.seen.add(key);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return 'claimed';
  }
}

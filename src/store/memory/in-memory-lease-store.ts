import { SystemClock, type Clock } from '../../core/clock';
import { LeaseLostError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import { StoreKeys } from '../keys';
import { checkLease, type Lease, type LeaseHolder, type LeaseStore } from '../lease-store-port';

interface Held {
  owner: string;
  token: number;
  expiresAtMs: number;
}

/**
 * Leases in one process, with the same rules as RedisLeaseStore (acquire-lease.lua ...): tokens only
 * grow per (strategy, market), re-acquiring by the same owner keeps the token, and an expired lease
 * counts as free. Time comes from the injected clock. Also the fencing authority of
 * InMemoryOrderStore (`currentToken`).
 */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly held = new Map<string, Held>();
  private readonly fences = new Map<string, number>();

  constructor(private readonly clock: Clock = new SystemClock()) {}

  async acquire(strategy: string, market: MarketName, owner: string, ttlMs: number, deadOwner?: string): Promise<Lease | undefined> {
    checkLease(owner, ttlMs);
    const id = StoreKeys.scopeId(strategy, market);
    const now = this.clock.nowMs();
    const current = this.live(id, now);
    if (current && current.owner !== owner && current.owner !== deadOwner) return undefined;
    if (current && current.owner === owner) {
      current.expiresAtMs = now + ttlMs;
      return { strategy, market, owner, token: current.token, ttlMs };
    }
    const token = (this.fences.get(id) ?? 0) + 1;
    this.fences.set(id, token);
    this.held.set(id, { owner, token, expiresAtMs: now + ttlMs });
    return { strategy, market, owner, token, ttlMs };
  }

  async renew(lease: Lease, ttlMs: number = lease.ttlMs): Promise<Lease> {
    checkLease(lease.owner, ttlMs);
    const now = this.clock.nowMs();
    const current = this.live(StoreKeys.scopeId(lease.strategy, lease.market), now);
    if (!current || current.owner !== lease.owner || current.token !== lease.token) {
      throw new LeaseLostError('this replica does not hold the lease (fencing token superseded or expired)', {
        strategy: lease.strategy, market: lease.market, owner: lease.owner, token: lease.token, currentToken: current?.token ?? '',
      });
    }
    current.expiresAtMs = now + ttlMs;
    return { ...lease, ttlMs };
  }

  async release(lease: Lease): Promise<boolean> {
    const id = StoreKeys.scopeId(lease.strategy, lease.market);
    const current = this.live(id, this.clock.nowMs());
    if (!current || current.owner !== lease.owner || current.token !== lease.token) return false;
    this.held.delete(id);
    return true;
  }

  async holder(strategy: string, market: MarketName): Promise<LeaseHolder | undefined> {
    const now = this.clock.nowMs();
    const current = this.live(StoreKeys.scopeId(strategy, market), now);
    return current ? { owner: current.owner, token: current.token, remainingMs: current.expiresAtMs - now } : undefined;
  }

  /** Owner and token of the live lease of a scope id (StoreKeys.scopeId), if any (fencing checks). */
  currentHolder(scopeId: string): { owner: string; token: number } | undefined {
    const held = this.live(scopeId, this.clock.nowMs());
    return held ? { owner: held.owner, token: held.token } : undefined;
  }

  private live(id: string, now: number): Held | undefined {
    const current = this.held.get(id);
    if (current && current.expiresAtMs <= now) {
      this.held.delete(id);
      return undefined;
    }
    return current;
  }
}

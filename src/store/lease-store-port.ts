import { ConfigError } from '../domain/errors';
import type { MarketName } from '../domain/market';

/**
 * Leases: each (strategy, market) is driven by one replica at a time. Acquiring returns a fencing
 * token that only grows across acquisitions; the store's submit step (recordSubmit, transition
 * `send`) checks it atomically, so a replica that paused past its TTL and lost the lease cannot
 * submit even if it has not noticed yet (LeaseLostError).
 *
 * Owner ids must be unique per process instance (e.g. `${hostname}:${pid}:${randomUUID()}`):
 * re-acquiring with the same owner id keeps the token, which is only right for the same process.
 */
export interface Lease {
  readonly strategy: string;
  readonly market: MarketName;
  readonly owner: string;
  /** Fencing token: larger for every new acquisition of this (strategy, market). */
  readonly token: number;
  /** TTL granted by the last acquire/renew, ms. Renew well before it runs out (e.g. every ttl/3). */
  readonly ttlMs: number;
}

/** Who holds a lease right now. */
export interface LeaseHolder {
  readonly owner: string;
  readonly token: number;
  /** Remaining time to live, ms. */
  readonly remainingMs: number;
}

export interface LeaseStore {
  /**
   * The lease, or undefined when another owner holds it (retry after its TTL). `deadOwner`: an owner
   * the caller knows is dead (a crashed process on its own host); its lease is taken over at once.
   */
  acquire(strategy: string, market: MarketName, owner: string, ttlMs: number, deadOwner?: string): Promise<Lease | undefined>;
  /** Extends the TTL; throws LeaseLostError when the lease expired or changed hands. */
  renew(lease: Lease, ttlMs?: number): Promise<Lease>;
  /** Gives the lease up if still held; false when it was already gone. */
  release(lease: Lease): Promise<boolean>;
  /** Current holder, if any. */
  holder(strategy: string, market: MarketName): Promise<LeaseHolder | undefined>;
}

/** The rules both adapters apply to a lease request (a memory store must refuse what Redis refuses). */
export function checkLease(owner: string, ttlMs: number): void {
  if (owner.length === 0) throw new ConfigError('lease owner id must not be empty', { path: 'lease.owner' });
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 10) throw new ConfigError(`lease TTL must be an integer >= 10 ms, got ${ttlMs}`, { path: 'lease.ttlMs' });
}

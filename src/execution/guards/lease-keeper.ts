import type { MarketName } from '../../domain/market';
import { StoreKeys } from '../../store/keys';
import type { Lease, LeaseStore } from '../../store/lease-store-port';

/** What the executor needs: the lease this process holds for (strategy, market), if any. */
export interface LeaseProvider {
  leaseFor(strategy: string, market: MarketName): Lease | undefined;
}

export interface LeaseKeeperOptions {
  readonly store: LeaseStore;
  /** Unique per process instance, e.g. `${hostname}:${pid}:${randomUUID()}`. */
  readonly owner: string;
  /** Lease TTL (default 10 s). Renewed every ttl/3. A dead replica's scopes free up after one TTL. */
  readonly ttlMs?: number;
  readonly onChange?: (scope: { strategy: string; market: MarketName }, held: boolean) => void;
  /** True for a holder known to be dead (src/app/dead-owner.ts): its lease is taken over at once. */
  readonly isDeadOwner?: (owner: string) => boolean;
}

/**
 * Acquires and renews the (strategy, market) leases of this replica. `tick()` does one round: renew
 * what is held (a renewal failure drops the lease at once, locally), try to acquire what is not.
 * The local copy is only a hint: the store re-checks the fencing token atomically at submit time,
 * so a replica that paused past its TTL cannot submit with a stale lease even before it notices.
 * Only the daemon's scheduler calls `tick()` periodically (every ttl/3), so this class owns no timer.
 */
export class LeaseKeeper implements LeaseProvider {
  private readonly held = new Map<string, Lease>();
  private readonly wanted = new Map<string, { strategy: string; market: MarketName }>();
  readonly ttlMs: number;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.ttlMs = options.ttlMs ?? 10_000;
  }

  want(strategy: string, market: MarketName): void {
    this.wanted.set(StoreKeys.scopeId(strategy, market), { strategy, market });
  }

  leaseFor(strategy: string, market: MarketName): Lease | undefined {
    return this.held.get(StoreKeys.scopeId(strategy, market));
  }

  heldScopes(): Lease[] {
    return [...this.held.values()];
  }

  async tick(): Promise<void> {
    for (const [id, scope] of this.wanted) {
      const lease = this.held.get(id);
      try {
        if (lease) {
          this.held.set(id, await this.options.store.renew(lease, this.ttlMs));
        } else {
          const got = await this.acquire(scope.strategy, scope.market);
          if (got) {
            this.held.set(id, got);
            this.options.onChange?.(scope, true);
          }
        }
      } catch {
        // Lost (LeaseLostError), or Redis unreachable: stop submitting for this scope until it is
        // re-acquired. A Redis error drops the lease too, because its TTL keeps running at the
        // server while we cannot renew. A failed acquire just tries again next tick.
        if (lease) {
          this.held.delete(id);
          this.options.onChange?.(scope, false);
        }
      }
    }
  }

  /**
   * Acquires, or takes over a lease whose holder is known to be dead (`isDeadOwner`: a crashed
   * process on this host, e.g. this daemon before a SIGKILL and restart), so a restart trades again
   * at once instead of after one TTL. A holder that may be alive is always waited for.
   */
  private async acquire(strategy: string, market: MarketName): Promise<Lease | undefined> {
    const { store, owner, isDeadOwner } = this.options;
    const got = await store.acquire(strategy, market, owner, this.ttlMs);
    if (got !== undefined || isDeadOwner === undefined) return got;
    const holder = await store.holder(strategy, market);
    if (holder === undefined || !isDeadOwner(holder.owner)) return undefined;
    return store.acquire(strategy, market, owner, this.ttlMs, holder.owner);
  }

  /** Gives every lease up (shutdown), so another replica takes over without waiting for the TTL. */
  async releaseAll(): Promise<void> {
    const all = [...this.held.entries()];
    this.held.clear();
    await Promise.allSettled(all.map(([, lease]) => this.options.store.release(lease)));
  }
}

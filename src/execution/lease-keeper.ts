import type { MarketName } from '../domain/market';
import { StoreKeys } from '../store/keys';
import type { Lease, LeaseStore } from '../store/lease-store-port';

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
          const got = await this.options.store.acquire(scope.strategy, scope.market, this.options.owner, this.ttlMs);
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

  /** Gives every lease up (shutdown), so another replica takes over without waiting for the TTL. */
  async releaseAll(): Promise<void> {
    const all = [...this.held.entries()];
    this.held.clear();
    await Promise.allSettled(all.map(([, lease]) => this.options.store.release(lease)));
  }
}

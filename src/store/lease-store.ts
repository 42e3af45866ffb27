import type { RedisConnection } from './redis';
import type { MarketName } from '../domain/market';
import type { StoreKeys } from './keys';
import { checkLease, type Lease, type LeaseHolder, type LeaseStore } from './lease-store-port';
import { withStore } from './redis';
import { errorForLuaCode, LuaErrorCode, replyCode, storeScripts, type StoreScripts } from './scripts';

/**
 * Leases in Redis: a hash (owner, token) with a TTL per (strategy, market), plus a fencing counter
 * that never expires, so a new owner always gets a larger token even after the old lease timed out.
 * The TTL is Redis's own (PEXPIRE): no replica's clock decides when a lease ends.
 * A Redis restart without persistence loses both keys; tokens may then start again at 1, which is
 * still safe because the submit check is "equal to the current lease's token", not "greater than".
 */
export class RedisLeaseStore implements LeaseStore {
  private readonly scripts: StoreScripts;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = storeScripts(redis);
  }

  async acquire(strategy: string, market: MarketName, owner: string, ttlMs: number, deadOwner?: string): Promise<Lease | undefined> {
    checkLease(owner, ttlMs);
    const reply = await withStore('acquireLease', () =>
      this.scripts.acquireLease(this.keys.lease(strategy, market), this.keys.fence(strategy, market), owner, ttlMs, deadOwner ?? ''),
    );
    const code = replyCode(reply);
    if (code === LuaErrorCode.LeaseHeld) return undefined;
    if (code !== 1) throw errorForLuaCode(code, { strategy, market, owner });
    return { strategy, market, owner, token: Number(reply[1]), ttlMs };
  }

  async renew(lease: Lease, ttlMs: number = lease.ttlMs): Promise<Lease> {
    checkLease(lease.owner, ttlMs);
    const reply = await withStore('renewLease', () =>
      this.scripts.renewLease(this.keys.lease(lease.strategy, lease.market), lease.owner, String(lease.token), ttlMs),
    );
    const code = replyCode(reply);
    if (code !== 1) throw errorForLuaCode(code, { strategy: lease.strategy, market: lease.market, owner: lease.owner, token: lease.token, currentToken: reply[1] });
    return { ...lease, ttlMs };
  }

  async release(lease: Lease): Promise<boolean> {
    const reply = await withStore('releaseLease', () =>
      this.scripts.releaseLease(this.keys.lease(lease.strategy, lease.market), lease.owner, String(lease.token)),
    );
    return replyCode(reply) === 1;
  }

  async holder(strategy: string, market: MarketName): Promise<LeaseHolder | undefined> {
    const key = this.keys.lease(strategy, market);
    const [fields, pttl] = await withStore('lease holder', async () => {
      const out = (await this.redis.pipeline().hgetall(key).pttl(key).exec()) ?? [];
      for (const [err] of out) if (err) throw err;
      return [out[0]?.[1] as Record<string, string>, out[1]?.[1] as number];
    });
    const owner = fields['owner'];
    const token = fields['token'];
    if (owner === undefined || token === undefined || pttl < 0) return undefined;
    return { owner, token: Number(token), remainingMs: pttl };
  }
}

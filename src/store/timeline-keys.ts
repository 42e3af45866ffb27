import { primariesOf, withStore, type RedisConnection } from './redis';
import type { DaemonRun } from './deployment-log-port';
import { RedisDeploymentLog } from './deployment-log';
import type { StoreKeys } from './keys';

/**
 * The key kinds of one account (StoreKeys) that belong to one market timeline: what a run did on the
 * venue's market (orders, their indexes, the leases of its process) and what it saw (the drift
 * records). A paper run on a NEW simulated market must not read them (paper-fresh-start.ts).
 */
export const TIMELINE_KINDS: readonly string[] = ['order', 'order-history', 'index', 'index-strategy', 'lease', 'drift-candles', 'drift', 'drift-run', 'notify-sent', 'guard', 'trailing', 'trailing-active'];

// `guard`: the guardrails' peaks and stops follow the PnL of this timeline's orders; `trailing`,
// `trailing-active`: trailing stops are legs of this timeline's orders.
// `notify-sent`: notification claims name orders by client order id, which a new timeline mints again
// from the same candles; kept, they would silence its fills.

/**
 * The kinds a new timeline keeps, and why: `control` holds the operator's decisions (promoted strategy
 * versions, the trading state set by `tradebot pause`, pending requests); `fence` counters must only
 * ever grow (a token handed out again could let a stale writer through); `nonce` only grows too; a
 * `bucket` is the venue's rate limit, not the market's. Every kind StoreKeys builds is in exactly one
 * of the two lists (test/unit/store/timeline-keys.test.ts), so a new kind needs a decision.
 */
export const KEPT_KINDS: readonly string[] = ['control', 'fence', 'nonce', 'bucket'];

/** The kind of a key of this account (`<base>:<kind>:<id>`), undefined for a key of another namespace. */
export function kindOfKey(keys: StoreKeys, key: string): string | undefined {
  if (!key.startsWith(`${keys.base}:`)) return undefined;
  const rest = key.slice(keys.base.length + 1);
  const colon = rest.indexOf(':');
  return colon <= 0 ? undefined : rest.slice(0, colon);
}

/** What one account's namespace holds of earlier runs. */
export interface TimelineSurvey {
  /** Timeline keys (TIMELINE_KINDS) present. */
  readonly keys: number;
  /** Orders in the journal, and how many of them are in a live status. */
  readonly orders: number;
  readonly openOrders: number;
  /** The daemon runs recorded (drift records), oldest first. */
  readonly runs: readonly DaemonRun[];
  /** Owners of unexpired leases that may still be running (not known dead): another daemon shares the namespace. */
  readonly leaseHolders: readonly string[];
}

const SCAN_COUNT = 500;

/**
 * Every key of this account whose kind matches, batch by batch. SCAN with the account's own pattern
 * (StoreKeys.pattern: the prefix and the `{account}` hash tag, escaped), then each key checked
 * against the exact base, so another account or another namespace (live `<prefix>:{acct}` next to
 * paper `<prefix>:paper:{acct}`) is never touched.
 */
async function scanKinds(redis: RedisConnection, keys: StoreKeys, kinds: readonly string[], each: (batch: string[]) => Promise<void>): Promise<void> {
  for (const node of primariesOf(redis)) {
    let cursor = '0';
    do {
      const [next, found] = await withStore('scan namespace', () => node.scan(cursor, 'MATCH', keys.pattern(), 'COUNT', SCAN_COUNT));
      cursor = next;
      const batch = found.filter((k) => kinds.includes(kindOfKey(keys, k) ?? ''));
      if (batch.length > 0) await each(batch);
    } while (cursor !== '0');
  }
}

/** Reads what the earlier runs left in this account's namespace (nothing is changed). */
export async function surveyTimeline(redis: RedisConnection, keys: StoreKeys, isDeadOwner: (owner: string) => boolean): Promise<TimelineSurvey> {
  let count = 0;
  const leaseKeys: string[] = [];
  await scanKinds(redis, keys, TIMELINE_KINDS, async (batch) => {
    count += batch.length;
    leaseKeys.push(...batch.filter((k) => kindOfKey(keys, k) === 'lease'));
  });
  const [orders, openOrders] = await withStore('survey journal', () => Promise.all([redis.zcard(keys.allOrders()), redis.scard(keys.liveOrders())]));
  const runs = await new RedisDeploymentLog(redis, keys).runs(0, Number.MAX_SAFE_INTEGER);
  const leaseHolders: string[] = [];
  for (const key of leaseKeys) {
    const [owner, pttl] = await withStore('survey leases', () => Promise.all([redis.hget(key, 'owner'), redis.pttl(key)]));
    if (owner !== null && pttl > 0 && !isDeadOwner(owner) && !leaseHolders.includes(owner)) leaseHolders.push(owner);
  }
  return { keys: count, orders, openOrders, runs: [...runs].sort((a, b) => a.startedMarketMs - b.startedMarketMs), leaseHolders };
}

/**
 * Deletes this account's timeline keys (TIMELINE_KINDS), UNLINK batch by batch (every key of the
 * account shares its hash tag, so a batch is one slot on a Redis Cluster too). Returns how many went.
 */
export async function clearTimeline(redis: RedisConnection, keys: StoreKeys): Promise<number> {
  let cleared = 0;
  await scanKinds(redis, keys, TIMELINE_KINDS, async (batch) => {
    cleared += await withStore('clear timeline', () => redis.unlink(...batch));
  });
  return cleared;
}

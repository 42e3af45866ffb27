import { createHash } from 'node:crypto';
import { ConfigError } from '../domain/errors';

/**
 * The ONLY place that builds Redis key names (like bullmq's QueueKeys). Every key has the form
 *
 *   <prefix>:{<account>}:<kind>:<id>
 *
 * - `prefix` (default `tradebot`) separates deployments or tests sharing one Redis.
 * - `{<account>}` is a Redis Cluster hash tag: every key of one account hashes to one slot, so the
 *   multi-key Lua scripts (journal + indexes + lease in one step) stay legal on a cluster.
 * - `account` is derived from the API key (first 12 hex digits of its SHA-256), never the key itself:
 *   key names show up in MONITOR, slowlogs and dashboards, where a secret must never appear.
 */
export const DEFAULT_KEY_PREFIX = 'tradebot';

/** 12 hex digits (48 bits) of SHA-256: collisions between one operator's keys are not a concern. */
export function accountIdFromApiKey(apiKey: string): string {
  if (apiKey.length === 0) throw new ConfigError('API key is empty: cannot derive the store account id', { path: 'apiKey' });
  return createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 12);
}

const PREFIX_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const ACCOUNT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Raw ids inside key names (client order ids, limit ids): no braces (hash tags) and no whitespace. */
function checkId(what: string, id: string): string {
  if (id.length === 0 || id.length > 200 || /[\s{}]/.test(id)) {
    throw new ConfigError(`invalid ${what} for a store key: ${JSON.stringify(id)}`, { path: what });
  }
  return id;
}

/** Free-form names (strategy, market): URI-encoded, so braces, spaces and '|' cannot confuse anything. */
function encodeId(what: string, id: string): string {
  if (id.length === 0 || id.length > 200) throw new ConfigError(`invalid ${what} for a store key: ${JSON.stringify(id)}`, { path: what });
  return encodeURIComponent(id);
}

export class StoreKeys {
  /** `<prefix>:{<account>}`: the part every key of this account starts with. */
  readonly base: string;

  constructor(
    readonly account: string,
    readonly prefix: string = DEFAULT_KEY_PREFIX,
  ) {
    // Braces in the prefix would move the hash tag; ':' is allowed so tests can nest prefixes.
    if (!PREFIX_PATTERN.test(prefix)) throw new ConfigError(`invalid store key prefix ${JSON.stringify(prefix)}`, { path: 'store.prefix' });
    if (!ACCOUNT_PATTERN.test(account)) throw new ConfigError(`invalid store account id ${JSON.stringify(account)}`, { path: 'store.account' });
    this.base = `${prefix}:{${account}}`;
  }

  static forApiKey(apiKey: string, prefix: string = DEFAULT_KEY_PREFIX): StoreKeys {
    return new StoreKeys(accountIdFromApiKey(apiKey), prefix);
  }

  private key(kind: string, id: string): string {
    return `${this.base}:${kind}:${id}`;
  }

  /** STRING: the last nonce handed out for this account's API key. */
  nonce(): string {
    return this.key('nonce', 'last');
  }

  /** HASH: token bucket state (`tokens`, `ts`) of one rate limit id. */
  bucket(limitId: string): string {
    return this.key('bucket', checkId('limit id', limitId));
  }

  /** HASH: the journal record of one order. */
  order(clientOrderId: string): string {
    return this.key('order', checkId('client order id', clientOrderId));
  }

  /** LIST: the bounded transition history of one order (oldest first). */
  orderHistory(clientOrderId: string): string {
    return this.key('order-history', checkId('client order id', clientOrderId));
  }

  /** SET: client order ids whose status is in LIVE_STATUSES. */
  liveOrders(): string {
    return this.key('index', 'live');
  }

  /** ZSET: every client order id, scored by creation time (ms). */
  allOrders(): string {
    return this.key('index', 'all');
  }

  /** ZSET: client order ids of one strategy, scored by creation time (ms). */
  strategyOrders(strategy: string): string {
    return this.key('index-strategy', encodeId('strategy', strategy));
  }

  /** HASH: number of live orders per (strategy, market); field from `liveCountField`. */
  liveCounts(): string {
    return this.key('index', 'live-count');
  }

  /** HASH (`owner`, `token`) with a TTL: who holds the (strategy, market) lease. */
  lease(strategy: string, market: string): string {
    return this.key('lease', StoreKeys.scopeId(strategy, market));
  }

  /** STRING counter, never expires: the last fencing token issued for (strategy, market). */
  fence(strategy: string, market: string): string {
    return this.key('fence', StoreKeys.scopeId(strategy, market));
  }

  /**
   * HASH (`state`, `reason`, `atMs`, `seq`, `epoch`): the operator's run-time trading state (`tradebot
   * pause|resume|reduce-only` writes it through set-trading-state.lua, which allocates `seq`; the
   * daemon polls it). Survives restarts.
   */
  tradingState(): string {
    return this.key('control', 'trading-state');
  }

  /** HASH instance -> JSON {instance, epoch, appliedSeq, state, atMs}: the trading-state record each replica applied. */
  tradingStateApplied(): string {
    return this.key('control', 'trading-state-applied');
  }

  /** STRING (JSON): the guardrails' state (equity peaks, losing round trips, stops in force; risk/guardrails/). */
  guardState(): string {
    return this.key('guard', 'state');
  }

  /** ZSET (score = the window's end, market s): the last drift checks, as the console lists them. */
  driftChecks(): string {
    return this.key('drift', 'checks');
  }

  /** STREAM of the operator's actions (who, what, when, result), CLI and console alike; capped. */
  audit(): string {
    return this.key('control', 'audit');
  }

  /** ZSET instance scored by the store's clock (ms) at its last report: which replicas are alive. */
  tradingStateSeen(): string {
    return this.key('control', 'trading-state-seen');
  }

  /** ZSET (score = open time, s): the closed candles of one (market, interval) the strategies got (drift check). */
  driftCandles(market: string, interval: string): string {
    return this.key('drift-candles', StoreKeys.scopeId(market, interval));
  }

  /** ZSET (score = candle time, s): what the executor did with each intent (drift check). */
  driftDecisions(): string {
    return this.key('drift', 'decisions');
  }

  /** ZSET (score = market ms): trading balance snapshots (drift check's starting state). */
  driftBalances(): string {
    return this.key('drift', 'balances');
  }

  /** ZSET (score = market ms): each strategy's live version from then on (drift check: version changes). */
  driftVersions(): string {
    return this.key('drift', 'versions');
  }

  /** ZSET (score = start, market ms): the daemon's runs, by run id. */
  driftRuns(): string {
    return this.key('drift', 'runs');
  }

  /** HASH: one run's start, last heartbeat and stop (market and wall ms). */
  driftRun(runId: string): string {
    return this.key('drift-run', checkId('run id', runId));
  }

  /**
   * HASH strategy name -> JSON {version, atMs, by}: the version `tradebot promote|rollback` made
   * live. Survives restarts; every replica reads it before a candle goes to its strategies.
   */
  strategyVersions(): string {
    return this.key('control', 'strategy-versions');
  }

  /** LIST of JSON requests (`tradebot reload|promote|rollback`) the daemon pops every second. */
  strategyRequests(): string {
    return this.key('control', 'strategy-requests');
  }

  /** STRING (JSON, short TTL): the daemon's answer to one strategy request. */
  strategyReply(id: string): string {
    return this.key('control', `strategy-reply:${encodeId('request', id)}`);
  }

  /** STRING (JSON): the daemon's live/shadow versions and divergences, for `tradebot shadow`. */
  strategyShadow(): string {
    return this.key('control', 'strategy-shadow');
  }

  /**
   * STRING "1" with a TTL (SET NX PX): this event was claimed for this notification channel by one
   * replica, which alone sends it. Event ids are URI-encoded; one longer than 200 characters is
   * replaced by its SHA-256, so a long id still names one key.
   */
  notificationSent(channel: string, eventId: string): string {
    const id = eventId.length > 200 ? `sha256-${createHash('sha256').update(eventId, 'utf8').digest('hex')}` : eventId;
    return this.key('notify-sent', `${encodeId('channel', channel)}|${encodeId('event id', id)}`);
  }

  /** STRING (JSON): one logical trailing stop (its legs, best price and move phase; store/trailing-store-port.ts). */
  trailingStop(id: string): string {
    return this.key('trailing', checkId('trailing stop id', id));
  }

  /** SET: ids of the trailing stops not yet ended (what a restart recovers). */
  activeTrailingStops(): string {
    return this.key('trailing-active', 'set');
  }

  /** Unambiguous field/id for a (strategy, market) pair: both parts URI-encoded, joined by '|'. */
  static scopeId(strategy: string, market: string): string {
    return `${encodeId('strategy', strategy)}|${encodeId('market', market)}`;
  }

  /** Field name in the liveCounts hash. */
  static liveCountField(strategy: string, market: string): string {
    return StoreKeys.scopeId(strategy, market);
  }

  /** Inverse of liveCountField. */
  static parseScopeId(field: string): { strategy: string; market: string } {
    const [strategy = '', market = ''] = field.split('|');
    return { strategy: decodeURIComponent(strategy), market: decodeURIComponent(market) };
  }

  /** Glob matching every key of this prefix and account (tests and tooling clean up with SCAN). */
  pattern(): string {
    return `${this.prefix}:\\{${this.account}\\}:*`;
  }
}

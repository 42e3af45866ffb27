import { primariesOf, type RedisConnection } from '../store/redis';
import type { FrozenConfig } from '../config/load';
import { usesRedis } from '../config/redis-target';
import { accountKeys, openAccountStore } from '../app/account-store';
import { controlStore } from '../app/strategy-versions-wiring';
import { strategyStateDir } from '../app/state-dirs';
import type { StrategyControlStore } from '../strategy-control/control-store';
import type { VersionStatus } from '../strategy/versions/versioned-host';
import { RedisTradingStateStore, type TradingStateRecord } from '../trading-state/trading-state-store';
import { StoreKeys } from '../store/keys';
import { RedisLeaseStore } from '../store/lease-store';
import { RedisOrderStore } from '../store/order-store';
import { parseExposition, type Sample } from './exposition';

/**
 * What `tradebot status` reports: the daemon as its metrics endpoint sees itself (readiness, the
 * trading state it applies, candles, kill-switch) and, with Redis, the account's shared state (the
 * stored trading state, leases, live journal orders). `healthy` = the endpoint answers and /readyz
 * is 200; `problems` says why not. Halted is not a problem: it is an operator's decision.
 */
export interface StatusReport {
  readonly healthy: boolean;
  /** Reachable and ready, but a live strategy is paused after failures (`pausedStrategies`): not healthy either. */
  readonly degraded: boolean;
  readonly problems: readonly string[];
  /** Live strategies paused after repeated failures (tradebot_strategy_paused), with the daemon's version status when it has one. */
  readonly pausedStrategies: readonly PausedStrategy[];
  readonly daemon: {
    readonly url: string;
    readonly reachable: boolean;
    readonly ready: boolean;
    readonly checks: Readonly<Record<string, { readonly ok: boolean; readonly reason?: string }>>;
    readonly version?: string;
    readonly store?: string;
    readonly account?: string;
    readonly tradingState?: string;
    /** How its strategy guests are walled off (tradebot_guest_isolation_info): thread, permission, permission-net or namespaces. */
    readonly guestIsolation?: string;
  };
  /** The operator's trading state as stored in Redis (survives restarts); undefined without Redis or when never set. */
  readonly storedTradingState?: TradingStateRecord | undefined;
  readonly leases: readonly { readonly strategy: string; readonly market: string; readonly owner?: string; readonly token?: number; readonly remainingMs?: number }[];
  readonly openOrders: readonly { readonly strategy: string; readonly market: string; readonly count: number }[];
  readonly candles: readonly { readonly market: string; readonly interval: string; readonly lastClose: string; readonly lagSeconds: number }[];
  readonly killSwitch: readonly { readonly market: string; readonly armed: boolean; readonly remainingSeconds: number | undefined }[];
  /** Guardrails in force (tradebot_risk_guard_active 1; docs/risk.md): decisions the config asked for, not problems. */
  readonly guardrails: readonly { readonly guard: string; readonly scope: string }[];
  /** The WebSocket streams (docs/streams.md): unhealthy means that concern is on REST polling, not a problem. */
  readonly streams: readonly StreamStatus[];
  /** Where the journal lives when there is no Redis to read. */
  readonly note?: string;
}

export interface PausedStrategy {
  readonly strategy: string;
  /** The last failure, with the strategy file's line and column when the daemon knew it. */
  readonly reason?: string | undefined;
  /** Paused since (ISO time, wall clock). */
  readonly since?: string | undefined;
}

export interface StreamStatus {
  readonly stream: string;
  readonly connected: boolean;
  readonly healthy: boolean;
  readonly messages: number;
  readonly reconnects: number;
  readonly resyncs: number;
  readonly staleFallbacks: number;
  readonly invalid: number;
}

/** One row per stream from its tradebot_stream_* series. */
function streamsOf(samples: readonly Sample[]): StreamStatus[] {
  const by = (name: string, stream: string): number =>
    of(samples, name).filter((s) => s.labels['stream'] === stream).reduce((sum, s) => sum + s.value, 0);
  const names = [...new Set(of(samples, 'tradebot_stream_connected').map((s) => s.labels['stream'] ?? ''))].sort();
  return names.map((stream) => ({
    stream, connected: by('tradebot_stream_connected', stream) === 1, healthy: by('tradebot_stream_healthy', stream) === 1,
    messages: by('tradebot_stream_messages_total', stream), reconnects: by('tradebot_stream_reconnects_total', stream),
    resyncs: by('tradebot_stream_resyncs_total', stream), staleFallbacks: by('tradebot_stream_stale_fallbacks_total', stream),
    invalid: by('tradebot_stream_invalid_messages_total', stream),
  }));
}

async function get(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'error' });
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

/** The metrics endpoint of a daemon run with this config (0.0.0.0 is reached on loopback). */
export function metricsUrlOf(config: FrozenConfig): string {
  const host = config.metrics.host === '0.0.0.0' || config.metrics.host === '::' ? '127.0.0.1' : config.metrics.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.metrics.port}`;
}

const of = (samples: readonly Sample[], name: string): Sample[] => samples.filter((s) => s.name === name);

export async function gatherStatus(config: FrozenConfig, env: NodeJS.ProcessEnv, url: string): Promise<StatusReport> {
  const problems: string[] = [];
  const readyz = await get(`${url}/readyz`);
  const metrics = await get(`${url}/metrics`);
  let checks: Record<string, { ok: boolean; reason?: string }> = {};
  if (readyz === undefined) problems.push(`the metrics endpoint ${url} does not answer (daemon down, or another metrics.port/host: use --url)`);
  else {
    try {
      checks = (JSON.parse(readyz.body) as { checks?: Record<string, { ok: boolean; reason?: string }> }).checks ?? {};
    } catch {
      problems.push(`${url}/readyz answered something that is not tradebot's JSON`);
    }
    for (const [name, c] of Object.entries(checks)) if (!c.ok) problems.push(`not ready: ${name} (${c.reason ?? 'failed'})`);
    if (readyz.status !== 200 && Object.values(checks).every((c) => c.ok)) problems.push(`/readyz answered ${readyz.status}`);
  }
  const samples = metrics?.status === 200 ? parseExposition(metrics.body) : [];
  const build = of(samples, 'tradebot_build_info')[0];
  const store = of(samples, 'tradebot_store_info')[0];
  const state = of(samples, 'tradebot_trading_state').find((s) => s.value === 1);
  const isolation = of(samples, 'tradebot_guest_isolation_info').find((s) => s.value === 1);
  const lag = new Map(of(samples, 'tradebot_candle_lag_seconds').map((s) => [`${s.labels['market']}|${s.labels['interval']}`, s.value]));
  const remaining = new Map(of(samples, 'tradebot_kill_switch_remaining_seconds').map((s) => [s.labels['market'], s.value]));

  let storedTradingState: TradingStateRecord | undefined;
  let leases: StatusReport['leases'] = [];
  let openOrders: StatusReport['openOrders'] = [];
  let note: string | undefined;
  let versions: readonly VersionStatus[] = [];
  if (!usesRedis(config)) {
    versions = await readVersions(controlStore(strategyStateDir(config, process.cwd()), undefined, accountKeys(config, env)));
    note = 'no Redis configured: the journal and leases live in the daemon\'s memory (shown from its metrics)';
    leases = of(samples, 'tradebot_lease_owned').filter((s) => s.value === 1).map((s) => ({ strategy: s.labels['strategy'] ?? '', market: s.labels['market'] ?? '' }));
    openOrders = of(samples, 'tradebot_open_orders').filter((s) => s.value > 0).map((s) => ({ strategy: s.labels['strategy'] ?? '', market: s.labels['market'] ?? '', count: s.value }));
  } else {
    try {
      const account = await openAccountStore(config, env, 'tradebot status');
      try {
        versions = await readVersions(controlStore('', account.redis, account.keys));
        storedTradingState = await new RedisTradingStateStore(account.redis, account.keys).read();
        leases = await readLeases(account.redis, account.keys);
        openOrders = countLive(await new RedisOrderStore({ redis: account.redis, keys: account.keys }).listLive());
      } finally {
        await account.close();
      }
    } catch (error) {
      problems.push(`Redis: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const pausedStrategies = pausedOf(samples, versions);
  const healthyDaemon = problems.length === 0;
  for (const p of pausedStrategies) {
    problems.push(`strategy ${p.strategy} paused after repeated failures${p.since === undefined ? '' : ` since ${p.since}`}: ${p.reason ?? 'reason in the daemon log ("strategy failed")'}; fix it, then \`tradebot strategy-resume ${p.strategy}\``);
  }
  const daemon = {
    url, reachable: readyz !== undefined, ready: readyz?.status === 200, checks,
    ...(build?.labels['version'] === undefined ? {} : { version: build.labels['version'] }),
    ...(store === undefined ? {} : { store: store.labels['backend'] ?? '', account: store.labels['account'] ?? '' }),
    ...(state?.labels['state'] === undefined ? {} : { tradingState: state.labels['state'] }),
    ...(isolation?.labels['level'] === undefined ? {} : { guestIsolation: isolation.labels['level'] }),
  };
  return {
    healthy: problems.length === 0, degraded: healthyDaemon && pausedStrategies.length > 0, problems, pausedStrategies, daemon, storedTradingState, leases, openOrders,
    candles: of(samples, 'tradebot_candle_last_close_timestamp_seconds').map((s) => ({
      market: s.labels['market'] ?? '', interval: s.labels['interval'] ?? '',
      lastClose: new Date(s.value * 1000).toISOString(), lagSeconds: lag.get(`${s.labels['market']}|${s.labels['interval']}`) ?? Number.NaN,
    })),
    streams: streamsOf(samples),
    killSwitch: of(samples, 'tradebot_kill_switch_armed').map((s) => ({ market: s.labels['market'] ?? '', armed: s.value === 1, remainingSeconds: remaining.get(s.labels['market']) })),
    guardrails: of(samples, 'tradebot_risk_guard_active').filter((s) => s.value === 1).map((s) => ({ guard: s.labels['guard'] ?? '', scope: s.labels['scope'] ?? '' })),
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * The live strategies the metrics say are paused (tradebot_strategy_paused 1), with since when and why
 * from the version status the daemon writes to its control store (the reason is free text: no label).
 */
function pausedOf(samples: readonly Sample[], versions: readonly VersionStatus[]): PausedStrategy[] {
  const names = of(samples, 'tradebot_strategy_paused').filter((s) => s.value === 1).map((s) => s.labels['strategy'] ?? '').sort();
  return names.map((strategy) => {
    const p = versions.find((v) => v.strategy === strategy)?.paused;
    return p === undefined ? { strategy } : { strategy, reason: p.reason, since: new Date(p.sinceMs).toISOString() };
  });
}

/** The daemon's version status from its control store; none when never written or unreadable (status still reports the metrics). */
async function readVersions(store: StrategyControlStore): Promise<readonly VersionStatus[]> {
  try {
    const text = await store.readStatus();
    if (text === undefined) return [];
    const parsed = JSON.parse(text) as { strategies?: unknown };
    return Array.isArray(parsed.strategies) ? (parsed.strategies as VersionStatus[]) : [];
  } catch {
    return [];
  }
}

/** Every (strategy, market) this account ever leased (its fence counter never expires) and who holds it now. */
async function readLeases(redis: RedisConnection, keys: StoreKeys): Promise<StatusReport['leases']> {
  const fence = keys.fence('x', 'y');
  const prefix = fence.slice(0, fence.length - StoreKeys.scopeId('x', 'y').length);
  const scopes: { strategy: string; market: string }[] = [];
  // A Cluster scans per node: the account's keys share one slot, on one primary.
  for (const node of primariesOf(redis)) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      cursor = next;
      for (const key of found) scopes.push(StoreKeys.parseScopeId(key.slice(prefix.length)));
    } while (cursor !== '0');
  }
  const store = new RedisLeaseStore(redis, keys);
  const out: { strategy: string; market: string; owner?: string; token?: number; remainingMs?: number }[] = [];
  for (const s of scopes.sort((a, b) => `${a.strategy}|${a.market}`.localeCompare(`${b.strategy}|${b.market}`))) {
    const h = await store.holder(s.strategy, s.market);
    out.push(h === undefined ? s : { ...s, owner: h.owner, token: h.token, remainingMs: h.remainingMs });
  }
  return out;
}

function countLive(records: readonly { strategy: string; market: string }[]): StatusReport['openOrders'] {
  const counts = new Map<string, { strategy: string; market: string; count: number }>();
  for (const r of records) {
    const key = `${r.strategy}|${r.market}`;
    const c = counts.get(key) ?? { strategy: r.strategy, market: r.market, count: 0 };
    c.count += 1;
    counts.set(key, c);
  }
  return [...counts.values()].sort((a, b) => `${a.strategy}|${a.market}`.localeCompare(`${b.strategy}|${b.market}`));
}

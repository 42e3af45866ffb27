import * as path from 'node:path';
import type { RedisConnection } from '../store/redis';
import type { Clock } from '../core/clock';
import { loadConfig, type FrozenConfig } from '../config/load';
import { componentLogger, type Logger } from '../log/logger';
import type { JobDefinition } from '../jobs/scheduler';
import type { Metrics } from '../metrics/registry';
import type { StoreKeys } from '../store/keys';
import type { DescribedStrategy } from '../strategy/guest/describe-strategies';
import type { StrategyVersion, VersionedHost, VersionedHostEvents } from '../strategy/versions/versioned-host';
import type { StrategyControlStore } from '../strategy-control/control-store';
import { FileStrategyControlStore } from '../strategy-control/file-control-store';
import { isKept, keep, keptDir } from '../strategy-control/kept-sources';
import { RedisStrategyControlStore } from '../strategy-control/redis-control-store';
import type { OpenOnMarkets } from '../strategy-control/dropped-markets';
import { VERSION_ACTIONS, VersionControl, type Described, type DescribedVersion } from '../strategy-control/version-control';
import type { OpenOrderBook } from '../execution/kernel/open-order-book';
import type { Portfolio } from '../portfolio/portfolio';
import type { DaemonContext } from './daemon-context';
import type { Venue } from './exchange-wiring';
import { strategyStateDir } from './state-dirs';
import { describeStrategiesIn, strategyConfigs, type ConfiguredStrategies } from './strategy-wiring';
import type { Trading } from './trading-wiring';
import { operatorCancel } from './operator-cancel';

export interface PreparedVersions {
  /** The live version of each strategy: the promoted one when one is stored and kept, else the module on disk. */
  readonly live: readonly StrategyVersion[];
  /** Modules on disk that differ from the promoted version: they start as shadows once the daemon runs. */
  readonly shadowsAtStart: readonly StrategyVersion[];
  readonly store: StrategyControlStore;
  readonly stateDir: string;
}

/** The version of a described strategy: the content hash of the files its module loaded (the journal's strategyVersion). */
export function versionOf(s: DescribedStrategy): string {
  return s.identity.version;
}

export function withVersion(s: DescribedStrategy): DescribedVersion {
  return Object.freeze({ ...s, version: versionOf(s) });
}

/** Where the CLI and the daemon meet: Redis when configured (replicas share it), else files in the state directory. */
export function controlStore(stateDir: string, redis: RedisConnection | undefined, keys: StoreKeys): StrategyControlStore {
  return redis === undefined ? new FileStrategyControlStore(path.join(stateDir, 'control')) : new RedisStrategyControlStore(redis, keys);
}

/**
 * Start-up: each strategy's sources kept as its version, and the stored promotions honoured: a
 * daemon restarted after `tradebot promote` (or killed during one) runs the version stored, read
 * from its kept sources; a module on disk that differs from it runs as a shadow until promoted.
 */
export async function prepareVersions(ctx: DaemonContext, loaded: ConfiguredStrategies, venue: Pick<Venue, 'redis' | 'state'>): Promise<PreparedVersions> {
  const log = ctx.log;
  const stateDir = strategyStateDir(ctx.config, ctx.baseDir);
  const store = controlStore(stateDir, venue.redis, venue.state.keys);
  const promoted = await store.readPromoted().catch((err: unknown) => {
    log.error({ err }, 'promoted strategy versions not read: running the modules on disk');
    return {};
  });
  const configs = strategyConfigs(ctx.config);
  const live: StrategyVersion[] = [];
  const shadowsAtStart: StrategyVersion[] = [];
  for (const described of loaded.strategies) {
    const s = withVersion(described);
    const config = configs[s.name] ?? {};
    const onDisk: StrategyVersion = { strategy: s, dir: keepOrHere(loaded.dir, stateDir, s, log), config };
    const want = (promoted as Record<string, { version: string } | undefined>)[s.name]?.version;
    if (want === undefined || want === s.version) {
      live.push(onDisk);
      continue;
    }
    const kept = isKept(stateDir, s.name, want) ? await describeKept(ctx.config, keptDir(stateDir, s.name, want), s.name) : undefined;
    if (kept === undefined) {
      log.error({ strategy: s.name, promoted: want, onDisk: s.version }, 'the promoted version\'s sources are not kept here: running the module on disk');
      live.push(onDisk);
      continue;
    }
    log.warn({ strategy: s.name, promoted: want, onDisk: s.version }, 'running the promoted version; the module on disk differs and starts as a shadow (`tradebot promote` to trade it)');
    live.push({ strategy: kept, dir: keptDir(stateDir, s.name, want), config });
    shadowsAtStart.push(onDisk);
  }
  return { live, shadowsAtStart, store, stateDir };
}

async function describeKept(config: FrozenConfig, dir: string, name: string): Promise<DescribedVersion | undefined> {
  const found = (await describeStrategiesIn(config, dir)).strategies.find((s) => s.name === name);
  return found === undefined ? undefined : withVersion(found);
}

/** The guests load from the kept copy; if it cannot be written (read-only disk), from the strategy directory. */
function keepOrHere(dir: string, stateDir: string, s: DescribedVersion, log: Logger): string {
  try {
    return keep(dir, stateDir, s.name, s.version);
  } catch (err) {
    log.warn({ err, strategy: s.name, stateDir }, 'strategy sources not kept (rollback and restarts cannot return to this version)');
    return dir;
  }
}

/** How long a promote/rollback request is handed between replicas before one answers that none can. */
const HANDOFF_MS = 5000;

export interface WiredControl {
  readonly control: VersionControl;
  /** The job answering `tradebot reload|promote|rollback` (wall clock, every second) and publishing the status. */
  readonly job: JobDefinition;
  /** Starts the shadows the start-up found (modules on disk that differ from the promoted version). */
  startShadows(): Promise<void>;
}

/** The version controller and what feeds it; `events` is handed to the VersionedHost. */
export function versionEvents(m: Metrics, onClean: (strategy: string, clean: number) => void, onChange: () => void, onLive?: (strategy: string, version: string) => void): VersionedHostEvents {
  const shown = new Map<string, { live: string; shadow: string | undefined }>();
  return {
    onRoles: (e) => {
      const before = shown.get(e.strategy);
      if (before !== undefined) {
        m.strategyVersionInfo.remove({ strategy: e.strategy, version: before.live, role: 'live' });
        if (before.shadow !== undefined) m.strategyVersionInfo.remove({ strategy: e.strategy, version: before.shadow, role: 'shadow' });
      }
      m.strategyVersionInfo.set({ strategy: e.strategy, version: e.live, role: 'live' }, 1);
      if (e.shadow !== undefined) m.strategyVersionInfo.set({ strategy: e.strategy, version: e.shadow, role: 'shadow' }, 1);
      shown.set(e.strategy, { live: e.live, shadow: e.shadow });
      onLive?.(e.strategy, e.live);
      onChange();
    },
    onCompared: (e) => {
      m.strategyShadowCandles.inc({ strategy: e.strategy });
      for (const d of e.divergences) m.strategyShadowDivergences.inc({ strategy: e.strategy, divergence: d.kind });
      onClean(e.strategy, e.summary.cleanCandles);
      onChange();
    },
  };
}

/**
 * The version controller (`tradebot reload|promote|rollback`): a version may not abandon what its
 * strategy has open (openOnMarkets); the markets a new version trades are leased.
 */
export function wireVersionControl(ctx: DaemonContext, prepared: PreparedVersions, host: VersionedHost, trading: Trading, replicated: boolean): WiredControl {
  const { metrics, wallClock } = ctx;
  const log = componentLogger(ctx.log, 'strategy-versions');
  // Zero series from the start, so `increase()` sees the first reload of each strategy.
  for (const strategy of host.strategyNames()) for (const action of VERSION_ACTIONS) metrics.strategyVersionChanges.inc({ strategy, action }, 0);
  const configFile = ctx.configFile;
  const store = prepared.store;
  const control = new VersionControl({
    host, store, config: ctx.config, stateDir: prepared.stateDir, log, clock: wallClock,
    readConfig: () => {
      if (configFile === undefined) throw new Error('the daemon was started without a config file: nothing to re-read');
      return loadConfig(configFile, ctx.env);
    },
    strategyDir: (config) => path.resolve(ctx.baseDir, config.strategies.dir),
    describe: async (config, dir): Promise<Described> => {
      const d = await describeStrategiesIn(config, dir);
      return { strategies: d.strategies.map(withVersion), errors: d.errors };
    },
    configFor: (config, name) => strategyConfigs(config)[name] ?? {},
    wantMarkets: (name, markets) => { for (const mk of markets) trading.exec.leases.want(name, mk); },
    openOn: openOnMarkets(trading.book, trading.portfolio),
    liftGuards: (strategy) => trading.guards?.release(strategy).map((l) => l.reason) ?? [],
    onAction: (strategy, action, change) => {
      metrics.strategyVersionChanges.inc({ strategy, action });
      // The replica that made the change tells it; the others applying it ('replica-promote') do not repeat it.
      if (change !== undefined && action !== 'replica-promote') {
        const atMs = wallClock.nowMs();
        ctx.events.emit({ type: 'version_changed', id: `version:${strategy}:${change.to}:${atMs}`, atMs, strategy, by: action, ...change });
      }
    },
  });
  const cancel = operatorCancel({
    store: trading.store, executor: trading.exec.executor, leases: trading.exec.leases,
    strategies: new Map(host.strategyNames().map((name) => [name, host.live(name).strategy.interval])),
  });
  return {
    control,
    job: {
      name: 'strategy-control', schedule: { kind: 'every', everyMs: 1000 },
      run: async () => {
        for (const request of await store.takeRequests()) {
          log.info({ request }, 'strategy request received');
          const { elsewhere, ...reply } = request.command === 'cancel'
            ? { id: request.id, atMs: wallClock.nowMs(), ...(await cancel(request).catch((err: unknown) => ({ ok: false, message: `failed: ${err instanceof Error ? err.message : String(err)}` }))) }
            : await control.handle(request);
          // Replicas share the request list: a promote/rollback this daemon has nothing for goes
          // back for another replica (the one that reloaded), for a few seconds.
          if (elsewhere === true && replicated && wallClock.nowMs() - request.atMs < HANDOFF_MS) await store.putRequest(request);
          else await store.putReply(reply);
        }
      },
    },
    startShadows: async () => {
      for (const v of prepared.shadowsAtStart) {
        const why = await host.stage(v);
        if (why === undefined) log.warn({ strategy: v.strategy.name, shadow: v.strategy.version }, 'module on disk started as a shadow of the promoted version');
        else log.error({ strategy: v.strategy.name, version: v.strategy.version, reason: why }, 'module on disk did not start as a shadow');
      }
    },
  };
}

/**
 * What a strategy has open on markets a new version would drop: its live orders from the journal
 * (the open-order book, refreshed first: the book may be a reconciliation old) and its position from
 * the portfolio the daemon trades with. Nothing recomputed here. A journal that cannot be read
 * throws: the change is refused rather than judged on a stale view.
 */
function openOnMarkets(book: OpenOrderBook, portfolio: Portfolio): OpenOnMarkets {
  return async (strategy, markets) => {
    await book.refresh();
    return markets.map((market) => ({
      market,
      orders: book.of(strategy, market).map((o) => o.clientOrderId),
      position: portfolio.position(strategy, market, undefined).amount.toString(),
    }));
  };
}

/** The status `tradebot shadow` reads, written at most once a second (wall clock). */
export function statusPublisher(host: () => VersionedHost | undefined, store: StrategyControlStore, clock: Clock, log: Logger): () => void {
  let lastMs = 0;
  let timer: NodeJS.Timeout | undefined;
  const write = (): void => {
    timer = undefined;
    lastMs = clock.nowMs();
    const h = host();
    if (h === undefined) return;
    store.writeStatus(JSON.stringify({ atMs: lastMs, strategies: h.status() })).catch((err: unknown) => log.warn({ err }, 'strategy version status not written'));
  };
  return () => {
    if (timer !== undefined) return;
    const wait = Math.max(0, 1000 - (clock.nowMs() - lastMs));
    timer = setTimeout(write, wait);
    timer.unref();
  };
}

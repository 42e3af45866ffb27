import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import type { ExchangeClient } from '../exchange/exchange-client';
import { componentLogger, type Logger } from '../log/logger';
import { initStrategySeries, recordCandleClose, type Metrics } from '../metrics/registry';
import { GuestHost, type GuestHostEvents } from '../strategy/guest/guest-host';
import { VersionedHost, type StrategyVersion, type VersionedHostEvents, type VersionRole } from '../strategy/versions/versioned-host';
import { CandleFlow, type IntentSink } from '../strategy/candle-flow';
import { settleBeforeCandle, type AccountStreamView } from '../execution/kernel/candle-settlement';
import type { Interval } from '../domain/candle';
import type { MarketName } from '../domain/market';
import type { Trading } from './trading-wiring';
import { guestIsolationOf } from './guest-isolation';
import { roleTaggedLogger } from './role-tagged-logger';
import type { DeploymentRecorder } from '../drift/deployment-recorder';

export interface StrategyRuntimeInput {
  readonly config: FrozenConfig;
  /** The live version of each strategy (its metadata, the directory its guest loads it from, its config). */
  readonly versions: readonly StrategyVersion[];
  /** Role changes and shadow comparisons (metrics, status, auto-promotion). */
  readonly versionEvents?: VersionedHostEvents | undefined;
  /** A live strategy was paused after failures or resumed: the version status (`tradebot status` reads it) is written again. */
  readonly onPauseChange?: (() => void) | undefined;
  /** Runs before each closed candle goes to the strategies (replicas: apply a version promoted elsewhere). */
  readonly beforeCandle?: (() => Promise<void>) | undefined;
  readonly exchange: ExchangeClient;
  readonly trading: Trading;
  readonly sink: IntentSink;
  /** The exchange's time (market clock in paper mode). */
  readonly marketClock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Records what the strategies got (the drift check); absent when `drift.record` is off. */
  readonly recorder?: DeploymentRecorder | undefined;
  /** The WebSocket streams, when configured (stream-wiring.ts). */
  readonly streams?: {
    readonly account: AccountStreamView | undefined;
    marketTriggers(market: MarketName, interval: Interval): boolean;
  };
}

/**
 * The strategies as guests (GuestHost: a worker thread each, no daemon environment, a heap limit, a
 * deadline that terminates the thread; failures counted, paused, restarted and re-warmed) fed by the
 * candle flow (closed candles only, warm-up, staleness guard), with their events observed by metrics
 * and logs. Start the host (`host.start()`) before the warm-up; close it at shutdown.
 */
export function wireStrategyRuntime(i: StrategyRuntimeInput): { readonly host: VersionedHost; readonly flow: CandleFlow } {
  const c = i.config;
  const m = i.metrics;
  const { balances, book, exec, positions, feedback } = i.trading;
  const strategies = i.versions.map((v) => v.strategy);
  for (const s of strategies) initStrategySeries(m, s.name, s.markets);
  const host = new VersionedHost({
    live: i.versions,
    takeEvents: (strategy, market) => feedback.feedback.take(strategy, market),
    events: i.versionEvents,
    // One guest host per version: its guests load that version's sources with that version's config.
    hostFor: (v, ctx) => new GuestHost({
      strategies: [v.strategy], dir: v.dir, configFor: () => v.config, heapMb: c.strategies.guestHeapMb, isolation: guestIsolationOf(c), clock: i.marketClock,
      logLinesPerSecond: c.strategies.guestLogLinesPerSecond,
      logger: roleTaggedLogger(componentLogger(i.log, 'strategy', { version: v.strategy.version }), ctx.role),
      timeBudgetMs: c.strategies.timeBudgetMs, maxConsecutiveFailures: c.strategies.maxConsecutiveFailures,
      view: {
        balances: () => balances.latest()?.balances ?? {},
        openOrders: (strategy, market) => book.of(strategy, market),
        marketInfo: (market) => exec.catalog.cached(market),
        position: (strategy, market, close) => feedback.feedback.position(strategy, market, close),
        events: (strategy, market) => ctx.events(strategy, market),
      },
      events: guestEvents(m, i.log, ctx.role, i.onPauseChange),
    }),
  });
  const flow = new CandleFlow({
    host, client: i.exchange, clock: i.marketClock, log: componentLogger(i.log, 'candles'), klineDelayMs: c.polling.klineDelayMs,
    sink: i.sink,
    beforeStrategies: beforeStrategies(i.beforeCandle, settleBeforeCandle({
      reconciler: exec.reconciler, book, feedback,
      pollBalances: async () => { await Promise.all([balances.poll(), i.trading.collateral.poll()]); },
      stream: i.streams?.account,
    }), componentLogger(i.log, 'strategy-versions')),
    ...(i.streams === undefined ? {} : { streamTriggers: (mk: MarketName, iv: Interval) => i.streams?.marketTriggers(mk, iv) === true }),
    warmupFor: (market, interval) => Math.max(1, ...strategies.filter((s) => s.interval === interval && s.markets.includes(market)).map((s) => s.warmup)),
    hooks: {
      onCandle: (market, interval, closeTime, close) => {
        recordCandleClose(m, market, interval, closeTime);
        positions.price(market, close);
      },
      onDelivered: (e) => i.recorder?.onCandle(e),
      onStaleIntents: (intents) => {
        i.recorder?.onStale(intents);
        for (const x of intents) {
          m.intents.inc({ strategy: x.strategy, result: 'denied', rule: 'stale_candle' });
          feedback.feedback.denied(x.strategy, x.intent.market, 'stale_candle', 'computed on a candle older than one interval');
        }
      },
    },
  });
  return { host, flow };
}

/** A guest's events observed by role: a shadow's failures have their own counters and never pause the live version. */
function guestEvents(m: Metrics, log: Logger, role: () => VersionRole, onPauseChange: (() => void) | undefined): GuestHostEvents {
  const live = (): boolean => role() === 'live';
  return {
    onError: (e) => (live() ? m.strategyErrors : m.strategyShadowErrors).inc({ strategy: e.strategy }),
    onOverrun: (e) => (live() ? m.strategyOverruns : m.strategyShadowOverruns).inc({ strategy: e.strategy }),
    onDuration: (e) => { if (live()) m.strategyDuration.observe({ strategy: e.strategy }, e.elapsedMs / 1000); },
    onPaused: (e) => {
      if (live()) m.strategyPaused.set({ strategy: e.strategy }, 1);
      onPauseChange?.();
      // warn, not error: the failure that paused it is its own error line (one per failure).
      log.warn({ strategy: e.strategy, role: role(), consecutiveFailures: e.consecutiveFailures, reason: e.error.message, ...(live() ? { resumeWith: `tradebot strategy-resume ${e.strategy}` } : {}) }, 'strategy paused after repeated failures');
    },
    onResumed: (e) => {
      if (live()) m.strategyPaused.set({ strategy: e.strategy }, 0);
      onPauseChange?.();
    },
    onRestart: (e) => log.warn({ strategy: e.strategy, role: role(), reason: e.reason }, 'strategy thread ended: restarting it fresh and re-warming it from the candle history'),
    onLogCapped: (e) => m.strategyLogCapped.inc({ strategy: e.strategy, cap: e.reason }, e.lines),
    onIntents: (e) => log.debug({ strategy: e.strategy, role: role(), market: e.market, candleTime: e.candleTime, intents: e.intents.length }, 'intents'),
  };
}

function beforeStrategies(first: (() => Promise<void>) | undefined, settle: (market: string) => Promise<void>, log: Logger): (market: string) => Promise<void> {
  if (first === undefined) return settle;
  return async (market) => {
    await first().catch((err: unknown) => log.error({ err, market }, 'promoted strategy versions not read before the candle'));
    await settle(market);
  };
}

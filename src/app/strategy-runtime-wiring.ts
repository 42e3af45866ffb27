import { intervalSeconds, type Interval } from '../domain/candle';
import { markSettledCandle } from '../execution/kernel/guard-marks';
import type { StepCandle } from '../strategy/candle-step';
import type { MarketName } from '../domain/market';
import { DeploymentRecorder } from '../drift/deployment-recorder';
import { settleBeforeCandle, type AccountStreamView } from '../execution/kernel/candle-settlement';
import { executorSink } from '../execution/orders/intent-sink';
import { trailBeforeStrategies } from '../execution/kernel/trailing-step';
import type { JobDefinition } from '../jobs/scheduler';
import { componentLogger, type Logger } from '../log/logger';
import { initStrategySeries, recordCandleClose, type Metrics } from '../metrics/registry';
import { CandleFlow } from '../strategy/candle-flow';
import { GuestHost, type GuestHostEvents } from '../strategy/guest/guest-host';
import { VersionedHost, type VersionRole } from '../strategy/versions/versioned-host';
import type { DaemonContext } from './daemon-context';
import type { Venue } from './exchange-wiring';
import { guestIsolationOf } from './guest-isolation';
import { roleTaggedLogger } from './role-tagged-logger';
import { prepareVersions, statusPublisher, versionEvents, wireVersionControl, type WiredControl } from './strategy-versions-wiring';
import { warmupSeconds, type ConfiguredStrategies } from './strategy-wiring';
import type { Trading } from './trading-wiring';

/** What the started strategies hand the schedulers. */
export interface StrategyRuntime {
  /** Closed candles to the strategies: its jobs poll the klines, the market streams trigger them. */
  readonly flow: CandleFlow;
  /** The job answering `tradebot reload|promote|rollback` (wall clock) and publishing the version status. */
  readonly controlJob: JobDefinition;
}

/**
 * The strategies as guests (GuestHost: a worker thread each, no daemon environment, a heap limit, a
 * deadline that terminates the thread; failures counted, paused, restarted and re-warmed), each as
 * versions (live, and a shadow after a reload: VersionedHost), fed by the candle flow (closed candles
 * only, warm-up, staleness guard), with their events observed by metrics and logs; started and warmed
 * up, what they get recorded for the drift check (drift.record).
 */
export async function startStrategyRuntime(
  ctx: DaemonContext, venue: Venue, loaded: ConfiguredStrategies, trading: Trading, signal: AbortSignal,
  streams: { readonly account: AccountStreamView | undefined; marketTriggers(market: MarketName, interval: Interval): boolean },
): Promise<StrategyRuntime> {
  const { config: c, metrics: m, log } = ctx;
  const { marketClock, redis } = venue;
  const { balances, book, exec, positions, feedback } = trading;
  const recorder = c.drift.record ? new DeploymentRecorder({
    log: venue.state.deployment, marketClock, wallClock: ctx.wallClock, logger: componentLogger(log, 'drift-record'),
    balances: () => balances.latest()?.balances, collateral: () => trading.collateral.latest()?.balances, heartbeatMs: c.drift.heartbeatSeconds * 1000,
  }) : undefined;
  if (recorder !== undefined) {
    await recorder.start();
    ctx.closers.push({ name: 'drift record', close: () => recorder.stop() });
  }
  const prepared = await prepareVersions(ctx, loaded, venue);
  const strategies = prepared.live.map((v) => v.strategy);
  for (const s of strategies) initStrategySeries(m, s.name, s.markets);
  let wired: WiredControl | undefined;
  const publish = statusPublisher(() => host, prepared.store, ctx.wallClock, log);
  const host: VersionedHost = new VersionedHost({
    live: prepared.live,
    takeEvents: (strategy, market) => feedback.feedback.take(strategy, market),
    events: versionEvents(m, (name, clean) => wired?.control.shadowClean(name, clean), publish, recorder === undefined ? undefined : (name, v) => recorder.onLiveVersion(name, v)),
    // One guest host per version: its guests load that version's sources with that version's config.
    hostFor: (v, hostCtx) => new GuestHost({
      strategies: [v.strategy], dir: v.dir, configFor: () => v.config, heapMb: c.strategies.guestHeapMb, isolation: guestIsolationOf(c), clock: marketClock,
      logLinesPerSecond: c.strategies.guestLogLinesPerSecond,
      logger: roleTaggedLogger(componentLogger(log, 'strategy', { version: v.strategy.version }), hostCtx.role),
      timeBudgetMs: c.strategies.timeBudgetMs, maxConsecutiveFailures: c.strategies.maxConsecutiveFailures,
      view: {
        balances: () => balances.latest()?.balances ?? {},
        openOrders: (strategy, market) => book.of(strategy, market),
        marketInfo: (market) => exec.catalog.cached(market),
        position: (strategy, market, close) => feedback.feedback.position(strategy, market, close),
        events: (strategy, market) => hostCtx.events(strategy, market),
      },
      events: guestEvents(m, log, hostCtx.role, publish, ctx),
    }),
  });
  const flow = new CandleFlow({
    host, client: venue.exchange, clock: marketClock, log: componentLogger(log, 'candles'), klineDelayMs: c.polling.klineDelayMs,
    sink: executorSink(exec.executor, book, m, ctx.wallClock, trading.execLog, feedback.feedback, recorder === undefined ? undefined : (x, r) => recorder.onDecision(x, r), () => feedback.idle()),
    beforeStrategies: beforeStrategies(redis === undefined ? undefined : () => wired?.control.sync() ?? Promise.resolve(), settleBeforeCandle({
      reconciler: exec.reconciler, book, feedback,
      pollBalances: async () => { await Promise.all([balances.poll(), trading.collateral.poll()]); },
      stream: streams.account,
    }), componentLogger(log, 'strategy-versions')),
    afterSettle: (c) => markGuards(trading, c, strategies.map((s) => s.name), m),
    trail: trailBeforeStrategies(trading.trailing, book, feedback, async () => { await Promise.all([balances.poll(), trading.collateral.poll()]); }),
    streamTriggers: (mk, iv) => streams.marketTriggers(mk, iv),
    warmupFor: (market, interval) => Math.max(1, ...strategies.filter((s) => s.interval === interval && s.markets.includes(market)).map((s) => s.warmup)),
    hooks: {
      onCandle: (market, interval, closeTime, close) => {
        recordCandleClose(m, market, interval, closeTime);
        positions.price(market, close);
        ctx.events.emit({ type: 'candle', id: `candle:${market}:${interval}:${closeTime}`, atMs: ctx.wallClock.nowMs(), market, candleTime: closeTime });
      },
      onDelivered: (e) => recorder?.onCandle(e),
      onStaleIntents: (intents) => {
        recorder?.onStale(intents);
        for (const x of intents) {
          m.intents.inc({ strategy: x.strategy, result: 'denied', rule: 'stale_candle' });
          feedback.feedback.denied(x.strategy, x.intent.market, 'stale_candle', 'computed on a candle older than one interval');
        }
      },
    },
  });
  wired = wireVersionControl(ctx, prepared, host, trading, redis !== undefined);
  ctx.closers.push({ name: 'strategy threads', close: () => host.close() });
  await host.start();
  venue.paper?.skipWarmup(warmupSeconds(loaded.strategies, intervalSeconds));
  await balances.poll().catch((err: unknown) => log.warn({ err }, 'first balance poll failed'));
  // OCO margin: an unfunded collateral account shows here, and OCOs are then denied before sending.
  await trading.collateral.poll().catch((err: unknown) => log.warn({ err }, 'first collateral balance poll failed'));
  await flow.warmUp(signal);
  log.info({ strategies: prepared.live.map((v) => ({ name: v.strategy.name, markets: v.strategy.markets, interval: v.strategy.interval, version: v.strategy.version })) }, 'strategies running');
  await wired.startShadows();
  return { flow, controlJob: wired.job };
}

/** The guardrails' mark of a settled candle (the kernel's one function), then the budgets' gauges of its market's money. */
function markGuards(trading: Trading, c: StepCandle, names: readonly string[], m: Metrics): void {
  const guards = trading.guards;
  if (guards === undefined) return;
  markSettledCandle(guards, c);
  const money = c.market.split('_')[1] as string;
  const balances = trading.balances.latest()?.balances ?? {};
  for (const strategy of names) {
    const view = guards.budget(strategy, money, balances, trading.book.ofStrategy(strategy));
    if (view === undefined) continue;
    m.riskBudgetAvailable.set({ strategy }, view.available.toNumber());
    m.riskBudgetAllocated.set({ strategy }, view.allocated.toNumber());
  }
}

/** A guest's events observed by role: a shadow's failures have their own counters and never pause the live version. */
function guestEvents(m: Metrics, log: Logger, role: () => VersionRole, onPauseChange: (() => void) | undefined, ctx: Pick<DaemonContext, 'events' | 'wallClock'>): GuestHostEvents {
  const live = (): boolean => role() === 'live';
  return {
    onError: (e) => (live() ? m.strategyErrors : m.strategyShadowErrors).inc({ strategy: e.strategy }),
    onOverrun: (e) => (live() ? m.strategyOverruns : m.strategyShadowOverruns).inc({ strategy: e.strategy }),
    onDuration: (e) => { if (live()) m.strategyDuration.observe({ strategy: e.strategy }, e.elapsedMs / 1000); },
    onPaused: (e) => {
      if (live()) m.strategyPaused.set({ strategy: e.strategy }, 1);
      onPauseChange?.();
      if (live()) {
        const atMs = ctx.wallClock.nowMs();
        ctx.events.emit({ type: 'strategy_paused', id: `paused:${process.pid}:${e.strategy}:${atMs}`, atMs, strategy: e.strategy, reason: e.error.message, consecutiveFailures: e.consecutiveFailures });
      }
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

import type { MarketClock } from '../core/clock';
import { intervalSeconds } from '../domain/candle';
import { runDriftInGuests } from '../drift/drift-in-guests';
import { driftSpecOf } from '../drift/drift-spec';
import { PeriodicDriftCheck, type PeriodicDriftCheckOptions } from '../drift/periodic-drift-check';
import { KillSwitchRefresher, type KillSwitchHealth } from '../execution/guards/kill-switch-refresher';
import type { OwnStrategy } from '../execution/reconciliation/own-orders';
import { LIMIT_IDS } from '../limiter/limits';
import { componentLogger } from '../log/logger';
import { recordKillSwitchRefresh, type Metrics } from '../metrics/registry';
import Redis from 'ioredis';
import { checkRedisHealth } from '../store/redis';
import { RedisPrimaryWatch } from '../store/redis-primary-watch';
import type { NonceSource } from '../exchange/nonce/nonce-source';
import { CronJobScheduler, createJobScheduler, type JobEvents, type JobScheduler } from '../jobs/scheduler';
import type { Clock } from '../core/clock';
import type { DaemonContext } from './daemon-context';
import type { Venue } from './exchange-wiring';
import { guestIsolationOf } from './guest-isolation';
import type { StrategyRuntime } from './strategy-runtime-wiring';
import type { ConfiguredStrategies } from './strategy-wiring';
import { startMarketStreams, usesMarketStream, type AccountStream, type MarketStreams } from './stream-wiring';
import type { Trading } from './trading-wiring';

/**
 * The start's last step, once the strategies are warm: the market clock let run (paper), the market
 * streams (their candle rollovers trigger each kline fetch at the close; the scheduled poll stays as
 * the fallback), then the daemon's timers, registered for shutdown:
 * - market time: candle polls (aligned to closes), balances, the drift check;
 * - wall time: reconciliation, leases, the operator's trading state, the strategy versions' control,
 *   Redis health, limiter tokens.
 * Returns the market streams when exchange.streams uses them.
 */
export async function startSchedulers(ctx: DaemonContext, venue: Venue, loaded: ConfiguredStrategies, trading: Trading, runtime: StrategyRuntime, accountStream: AccountStream | undefined): Promise<MarketStreams | undefined> {
  const { config: c, metrics: m, wallClock } = ctx;
  const { marketClock, redis, state } = venue;
  const { flow } = runtime;
  venue.paper?.run();
  let marketStreams: MarketStreams | undefined;
  if (usesMarketStream(c)) {
    const streams = startMarketStreams({
      config: c, url: venue.streamUrl, exchange: venue.exchange, metrics: m, log: ctx.log, subscriptions: flow.subscriptions(), marketClock,
      onClosed: (mk, iv, openTime) => { void flow.closed(mk, iv, openTime); },
    });
    ctx.closers.push({ name: 'market streams', close: async () => streams.stop() });
    marketStreams = streams;
  }
  const driftCheck = periodicDriftCheck(ctx, marketClock, (from, to, stop) => runDriftInGuests(
    driftSpecOf(c, ctx.baseDir, from, to),
    { log: state.deployment, journal: state.orders },
    { strategies: loaded.strategies, isolation: guestIsolationOf(c), lowPriority: true, signal: stop },
  ));
  const { exec, balances, collateral, book, tradingControl } = trading;
  const schedLog = componentLogger(ctx.log, 'scheduler');
  const events = jobEvents(m, wallClock);
  const market = observed(createJobScheduler({ clock: marketClock, log: schedLog, events }), m, marketClock.speed, wallClock);
  const wall = observed(new CronJobScheduler({ log: schedLog, events }), m, 1, wallClock);
  for (const job of flow.jobs()) market.add(job);
  market.add({ name: 'balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await balances.poll(); } });
  market.add({ name: 'collateral-balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await collateral.poll(); } });
  wall.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: c.reconcile.intervalSeconds * 1000 }, run: async () => {
    // With a healthy account stream, the periodic reconciliation skips passes (docs/streams.md).
    if (accountStream !== undefined && !accountStream.reconcileNow()) return;
    await exec.reconciler.runOnce();
    await book.refresh();
  } });
  // Renewed about every third of the TTL (3 s with the default 10 s), in whole seconds dividing a
  // minute (the wall scheduler is cron), so two missed renewals still keep it.
  wall.add({ name: 'leases', schedule: { kind: 'every', everyMs: renewalPeriodMs(exec.leases.ttlMs) }, run: () => exec.leases.tick() });
  wall.add({ name: 'trading-state', schedule: { kind: 'every', everyMs: 1000 }, run: () => tradingControl.sync() });
  wall.add(runtime.controlJob);
  if (redis !== undefined) {
    // A failover can lose nonces already sent: raised past them on every check too, since a Cluster's
    // shards fail over inside ioredis, unseen by the watch below.
    wall.add({ name: 'redis-health', schedule: { kind: 'every', everyMs: 5000 }, run: async () => {
      const up = (await checkRedisHealth(redis)).ok;
      ctx.onRedisUp(up);
      if (up) await raiseNonces(ctx, state.nonces);
    } });
    // One primary to follow exists only without a Cluster.
    if (redis instanceof Redis) {
      await watchRedisPrimary(ctx, redis, async () => { await raiseNonces(ctx, state.nonces); await exec.reconciler.runOnce(); await book.refresh(); });
    }
  }
  // Read on a timer, not per request: with the Redis bucket each read is a round trip.
  wall.add({
    name: 'limiter-tokens', schedule: { kind: 'every', everyMs: 5000 },
    run: async () => { for (const limit of LIMIT_IDS) m.limiterAvailableTokens.set({ limit }, await state.limiter.available(limit)); },
  });
  if (driftCheck !== undefined) market.add({ name: 'drift-check', schedule: { kind: 'every', everyMs: c.drift.intervalMinutes * 60_000 }, run: async () => driftCheck.tick() });
  market.start();
  wall.start();
  ctx.schedulers.push(market, wall);
  return marketStreams;
}

/**
 * A lost primary and the next one: counted, timed and logged; once one answers, the journal is
 * reconciled at once (a failover can lose writes the old primary acknowledged: orders at the venue
 * that the journal forgot are adopted by their client order ids).
 */
async function watchRedisPrimary(ctx: DaemonContext, redis: Redis, reconcileNow: () => Promise<void>): Promise<void> {
  const log = componentLogger(ctx.log, 'redis');
  const watch = new RedisPrimaryWatch(redis, ctx.wallClock, {
    onLost: () => log.warn({}, 'Redis primary lost: nothing is sent until a primary answers'),
    onBack: ({ downMs, address, change }) => {
      ctx.metrics.redisWithoutPrimary.observe(downMs / 1000);
      if (change !== 'none') ctx.metrics.redisFailovers.inc({ change });
      log.warn({ downMs, address, change }, 'Redis primary answers again: reconciling the journal with the venue now');
      reconcileNow().catch((err: unknown) => log.error({ err }, 'reconciliation after the Redis primary came back failed; the periodic one retries'));
    },
  });
  await watch.start();
  ctx.closers.push({ name: 'redis primary watch', close: async () => watch.stop() });
}

/** Stored nonces back above every nonce this daemon sent (a failover may have lost the latest); said when one had to move. */
async function raiseNonces(ctx: DaemonContext, nonces: NonceSource): Promise<void> {
  const raised = await nonces.raisePastIssued();
  if (raised > 0) componentLogger(ctx.log, 'redis').warn({ keys: raised }, 'nonce below one already sent (lost in a Redis failover): raised past it');
}

/** The drift check every drift.intervalMinutes, when configured and possible (it reads the deployment's records). */
function periodicDriftCheck(ctx: DaemonContext, marketClock: MarketClock, run: PeriodicDriftCheckOptions['run']): PeriodicDriftCheck | undefined {
  const c = ctx.config;
  if (c.drift.intervalMinutes === 0) return undefined;
  if (!c.drift.record) {
    ctx.log.warn({ record: c.drift.record }, 'drift.intervalMinutes is set but the drift check needs drift.record: no periodic check');
    return undefined;
  }
  const check = new PeriodicDriftCheck({
    run, marketClock, wallClock: ctx.wallClock,
    windowMinutes: c.drift.windowMinutes, maxUnexplained: c.drift.maxUnexplained, metrics: ctx.metrics, log: componentLogger(ctx.log, 'drift-check'),
    onChecked: (d) => ctx.events.emit({ type: 'drift', id: `drift:${d.from}:${d.to}`, atMs: ctx.wallClock.nowMs(), allowed: c.drift.maxUnexplained, ...d }),
  });
  ctx.closers.push({ name: 'drift check', close: async () => check.stop() });
  return check;
}

/**
 * The kill-switch refresh on its own scheduler (market time), started right after the first
 * reconciliation rather than after the warm-up: a restarted daemon re-arms the exchange's timers
 * within seconds, long before they run out. Armed on killSwitch.markets, else on every market an
 * enabled strategy trades; nothing when the kill-switch is not enabled. `health` says why it must
 * not be refreshed now (undefined: healthy).
 */
export function startKillSwitch(ctx: DaemonContext, venue: Venue, strategies: readonly OwnStrategy[], health: KillSwitchHealth): void {
  const ks = ctx.config.killSwitch;
  if (!ks.enabled) return;
  const { metrics: m, wallClock } = ctx;
  const { marketClock } = venue;
  const log = componentLogger(ctx.log, 'kill-switch');
  const killSwitch = new KillSwitchRefresher({
    exchange: venue.exchange, markets: ks.markets.length > 0 ? ks.markets : [...new Set(strategies.flatMap((s) => s.markets))],
    timeoutSeconds: ks.timeoutSeconds, clock: marketClock, log, health,
    // Wall-clock stamps and a timeout in wall seconds: Prometheus compares them with time(), and a
    // paper run's market clock is years in the past.
    onRefresh: (mk, _marketNowMs, timeout) => recordKillSwitchRefresh(m, mk, wallClock.nowMs(), timeout / marketClock.speed),
    onSkip: (mk) => m.killSwitchArmed.set({ market: mk }, 0),
  });
  for (const mk of killSwitch.markets) {
    m.killSwitchTimeout.set({ market: mk }, ks.timeoutSeconds / marketClock.speed);
    m.killSwitchArmed.set({ market: mk }, 0);
  }
  const scheduler = observed(createJobScheduler({ clock: marketClock, log: componentLogger(ctx.log, 'scheduler'), events: jobEvents(m, wallClock) }), m, marketClock.speed, wallClock);
  scheduler.add({ name: 'kill-switch', schedule: { kind: 'every', everyMs: ks.refreshSeconds * 1000 }, run: async () => { await killSwitch.refresh(); } });
  scheduler.start();
  void killSwitch.refresh();
  ctx.schedulers.push(scheduler);
}

/** Each task's last success (wall clock) and failures. */
function jobEvents(m: Metrics, wallClock: Clock): JobEvents {
  return {
    onSuccess: (e) => m.pollLastSuccess.set({ task: e.job }, wallClock.nowMs() / 1000),
    onError: (e) => m.pollFailures.inc({ task: e.job }),
  };
}

/**
 * A scheduler whose jobs are observed from the moment they are added: their period in wall seconds
 * (tradebot_poll_interval_seconds, for TradebotPollStale), a zero failure count, and "last success"
 * starting at the time it was added, so a task that never succeeds turns stale too.
 */
function observed(scheduler: JobScheduler, m: Metrics, speed: number, wallClock: Clock): JobScheduler {
  const add = scheduler.add.bind(scheduler);
  scheduler.add = (job) => {
    add(job);
    const s = job.schedule;
    const periodMs = s.kind === 'every' ? s.everyMs : intervalSeconds(s.interval) * 1000;
    m.pollInterval.set({ task: job.name }, periodMs / 1000 / speed);
    m.pollFailures.inc({ task: job.name }, 0);
    m.pollLastSuccess.set({ task: job.name }, wallClock.nowMs() / 1000);
  };
  return scheduler;
}

/** The largest whole-second divisor of a minute not above a third of the lease TTL (at least 1 s). */
export function renewalPeriodMs(ttlMs: number): number {
  const third = Math.floor(ttlMs / 3000);
  const seconds = [60, 30, 20, 15, 12, 10, 6, 5, 4, 3, 2, 1].find((d) => d <= third) ?? 1;
  return seconds * 1000;
}

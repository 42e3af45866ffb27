import type Redis from 'ioredis';
import type { Clock, MarketClock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { intervalSeconds } from '../domain/candle';
import type { ExchangeClient } from '../exchange/exchange-client';
import { KillSwitchRefresher, type KillSwitchHealth } from '../execution/guards/kill-switch-refresher';
import { LIMIT_IDS } from '../limiter/limits';
import type { RateLimiter } from '../limiter/rate-limiter';
import { componentLogger, type Logger } from '../log/logger';
import { recordKillSwitchRefresh, type Metrics } from '../metrics/registry';
import { checkRedisHealth } from '../store/redis';
import type { CandleFlow } from '../strategy/candle-flow';
import { CronJobScheduler, createJobScheduler, type JobDefinition, type JobEvents, type JobScheduler } from '../jobs/scheduler';
import type { Trading } from './trading-wiring';

export interface JobsInput {
  readonly config: FrozenConfig;
  readonly trading: Trading;
  readonly flow: CandleFlow;
  readonly exchange: ExchangeClient;
  readonly limiter: RateLimiter;
  readonly redis: Redis | undefined;
  readonly marketClock: MarketClock;
  readonly wallClock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  readonly onRedisUp: (up: boolean) => void;
  /** Starts one drift check (a child process); run every drift.intervalMinutes of market time when set. */
  readonly driftCheck?: (() => void) | undefined;
  /** More wall-clock jobs (the strategy versions' control). */
  readonly wallJobs?: readonly JobDefinition[] | undefined;
  /** With a healthy account stream, false on the passes the periodic reconciliation skips (docs/streams.md). */
  readonly reconcileNow?: () => boolean;
}

/**
 * The daemon's timers, started here and returned for shutdown:
 * - market time: candle polls (aligned to closes), balances;
 * - wall time: reconciliation, leases, the operator's trading state, Redis health, limiter tokens.
 */
export function startJobs(i: JobsInput): JobScheduler[] {
  const c = i.config;
  const m = i.metrics;
  const { exec, balances, collateral, book, tradingControl } = i.trading;
  const schedLog = componentLogger(i.log, 'scheduler');
  const events = jobEvents(m, i.wallClock);
  const market = observed(createJobScheduler({ clock: i.marketClock, log: schedLog, events }), m, i.marketClock.speed, i.wallClock);
  const wall = observed(new CronJobScheduler({ log: schedLog, events }), m, 1, i.wallClock);
  for (const job of i.flow.jobs()) market.add(job);
  market.add({ name: 'balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await balances.poll(); } });
  market.add({ name: 'collateral-balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await collateral.poll(); } });
  wall.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: c.reconcile.intervalSeconds * 1000 }, run: async () => {
    if (i.reconcileNow?.() === false) return;
    await exec.reconciler.runOnce();
    await book.refresh();
  } });
  // Renewed about every third of the TTL (3 s with the default 10 s), in whole seconds dividing a
  // minute (the wall scheduler is cron), so two missed renewals still keep it.
  wall.add({ name: 'leases', schedule: { kind: 'every', everyMs: renewalPeriodMs(exec.leases.ttlMs) }, run: () => exec.leases.tick() });
  wall.add({ name: 'trading-state', schedule: { kind: 'every', everyMs: 1000 }, run: () => tradingControl.sync() });
  for (const job of i.wallJobs ?? []) wall.add(job);
  const redis = i.redis;
  if (redis !== undefined) {
    wall.add({ name: 'redis-health', schedule: { kind: 'every', everyMs: 5000 }, run: async () => { i.onRedisUp((await checkRedisHealth(redis)).ok); } });
  }
  // Read on a timer, not per request: with the Redis bucket each read is a round trip.
  wall.add({
    name: 'limiter-tokens', schedule: { kind: 'every', everyMs: 5000 },
    run: async () => { for (const limit of LIMIT_IDS) m.limiterAvailableTokens.set({ limit }, await i.limiter.available(limit)); },
  });
  const driftCheck = i.driftCheck;
  if (driftCheck !== undefined) market.add({ name: 'drift-check', schedule: { kind: 'every', everyMs: c.drift.intervalMinutes * 60_000 }, run: async () => driftCheck() });
  market.start();
  wall.start();
  return [market, wall];
}

export interface KillSwitchInput {
  readonly config: FrozenConfig;
  readonly exchange: ExchangeClient;
  /** Markets to arm when killSwitch.markets is empty: every market an enabled strategy trades. */
  readonly markets: readonly string[];
  readonly marketClock: MarketClock;
  readonly wallClock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Why the kill-switch must not be refreshed now (undefined: healthy). */
  readonly health: KillSwitchHealth;
}

/**
 * The kill-switch refresh on its own scheduler (market time), started right after the first
 * reconciliation rather than after the warm-up: a restarted daemon re-arms the exchange's timers
 * within seconds, long before they run out. Undefined when the kill-switch is not enabled.
 */
export function startKillSwitch(i: KillSwitchInput): JobScheduler | undefined {
  const ks = i.config.killSwitch;
  if (!ks.enabled) return undefined;
  const m = i.metrics;
  const log = componentLogger(i.log, 'kill-switch');
  const killSwitch = new KillSwitchRefresher({
    exchange: i.exchange, markets: ks.markets.length > 0 ? ks.markets : [...new Set(i.markets)],
    timeoutSeconds: ks.timeoutSeconds, clock: i.marketClock, log, health: i.health,
    // Wall-clock stamps and a timeout in wall seconds: Prometheus compares them with time(), and a
    // paper run's market clock is years in the past.
    onRefresh: (mk, _marketNowMs, timeout) => recordKillSwitchRefresh(m, mk, i.wallClock.nowMs(), timeout / i.marketClock.speed),
    onSkip: (mk) => m.killSwitchArmed.set({ market: mk }, 0),
  });
  for (const mk of killSwitch.markets) {
    m.killSwitchTimeout.set({ market: mk }, ks.timeoutSeconds / i.marketClock.speed);
    m.killSwitchArmed.set({ market: mk }, 0);
  }
  const scheduler = observed(createJobScheduler({ clock: i.marketClock, log: componentLogger(i.log, 'scheduler'), events: jobEvents(m, i.wallClock) }), m, i.marketClock.speed, i.wallClock);
  scheduler.add({ name: 'kill-switch', schedule: { kind: 'every', everyMs: ks.refreshSeconds * 1000 }, run: async () => { await killSwitch.refresh(); } });
  scheduler.start();
  void killSwitch.refresh();
  return scheduler;
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

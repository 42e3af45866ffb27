import type Redis from 'ioredis';
import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import type { ExchangeClient } from '../exchange/exchange-client';
import { KillSwitchRefresher, type KillSwitchHealth } from '../execution/kill-switch-refresher';
import { LIMIT_IDS } from '../limiter/limits';
import type { RateLimiter } from '../limiter/rate-limiter';
import { componentLogger, type Logger } from '../log/logger';
import type { MarketClock } from '../market-data/market-clock';
import { recordKillSwitchRefresh, type Metrics } from '../metrics/registry';
import { checkRedisHealth } from '../store/redis';
import type { CandleFlow } from './candle-flow';
import { CronJobScheduler, createJobScheduler, type JobEvents, type JobScheduler } from './scheduler';
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
  /** Why the kill-switch must not be refreshed now (undefined: healthy). */
  readonly killSwitchHealth: KillSwitchHealth;
  readonly onRedisUp: (up: boolean) => void;
}

/**
 * The daemon's timers, started here and returned for shutdown:
 * - market time: candle polls (aligned to closes), balances, the kill-switch refresh;
 * - wall time: reconciliation, leases, the operator's trading state, Redis health, limiter tokens.
 */
export function startJobs(i: JobsInput): JobScheduler[] {
  const c = i.config;
  const m = i.metrics;
  const { exec, balances, collateral, book, tradingControl } = i.trading;
  const schedLog = componentLogger(i.log, 'scheduler');
  const events: JobEvents = {
    onSuccess: (e) => m.pollLastSuccess.set({ job: e.job }, i.wallClock.nowMs() / 1000),
    onError: (e) => m.pollFailures.inc({ job: e.job }),
  };
  const market = createJobScheduler({ clock: i.marketClock, log: schedLog, events });
  const wall = new CronJobScheduler({ log: schedLog, events });
  for (const job of i.flow.jobs()) market.add(job);
  market.add({ name: 'balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await balances.poll(); } });
  market.add({ name: 'collateral-balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await collateral.poll(); } });
  const ks = c.killSwitch;
  if (ks.enabled) {
    const killSwitch = new KillSwitchRefresher({
      exchange: i.exchange, markets: ks.markets.length > 0 ? ks.markets : [...new Set(i.flow.subscriptions().map((s) => s.market))],
      timeoutSeconds: ks.timeoutSeconds, clock: i.marketClock, log: componentLogger(i.log, 'kill-switch'),
      health: i.killSwitchHealth,
      onRefresh: (mk, nowMs, timeout) => recordKillSwitchRefresh(m, mk, nowMs, timeout),
    });
    market.add({ name: 'kill-switch', schedule: { kind: 'every', everyMs: ks.refreshSeconds * 1000 }, run: async () => { await killSwitch.refresh(); } });
    void killSwitch.refresh();
  }
  wall.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: c.reconcile.intervalSeconds * 1000 }, run: async () => { await exec.reconciler.runOnce(); await book.refresh(); } });
  wall.add({ name: 'leases', schedule: { kind: 'every', everyMs: 3000 }, run: () => exec.leases.tick() });
  wall.add({ name: 'trading-state', schedule: { kind: 'every', everyMs: 1000 }, run: () => tradingControl.sync() });
  const redis = i.redis;
  if (redis !== undefined) {
    wall.add({ name: 'redis-health', schedule: { kind: 'every', everyMs: 5000 }, run: async () => { i.onRedisUp((await checkRedisHealth(redis)).ok); } });
  }
  // Read on a timer, not per request: with the Redis bucket each read is a round trip.
  wall.add({
    name: 'limiter-tokens', schedule: { kind: 'every', everyMs: 5000 },
    run: async () => { for (const limit of LIMIT_IDS) m.limiterAvailableTokens.set({ limit }, await i.limiter.available(limit)); },
  });
  market.start();
  wall.start();
  return [market, wall];
}

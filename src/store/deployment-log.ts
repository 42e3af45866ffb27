import type { RedisConnection } from './redis';
import type { Interval } from '../domain/candle';
import {
  DEFAULT_DEPLOYMENT_LOG_LIMITS, candleLine, runFromFields, runsOverlapping, runMarkFields,
  type DaemonRun, type DeploymentLog, type DeploymentLogLimits, type RecordedBalances, type RecordedCandle, type RecordedDecision, type RecordedVersion, type RunMark,
} from './deployment-log-port';
import type { StoreKeys } from './keys';
import { withStore } from './redis';
import { storeScripts, type StoreScripts } from './scripts';

/**
 * The deployment log in Redis: one ZSET per (market, interval) of candle lines scored by open time,
 * ZSETs of decisions and balance snapshots, and one HASH per daemon run indexed by a ZSET. Appends go
 * through append-record.lua (add + trim in one step). Sizing: docs/drift.md ("Storage").
 */
export class RedisDeploymentLog implements DeploymentLog {
  private readonly scripts: StoreScripts;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: StoreKeys,
    private readonly limits: DeploymentLogLimits = DEFAULT_DEPLOYMENT_LOG_LIMITS,
  ) {
    this.scripts = storeScripts(redis);
  }

  async recordCandle(c: RecordedCandle): Promise<boolean> {
    const reply = await withStore('recordCandle', () =>
      this.scripts.appendRecord(this.keys.driftCandles(c.market, c.interval), c.time, candleLine(c), c.time - this.limits.retentionSec, this.limits.maxEntries, true));
    return reply[0] === 1;
  }

  async candles(market: string, interval: Interval, fromSec: number, toSec: number): Promise<RecordedCandle[]> {
    const lines = await withStore('candles', () => this.redis.zrangebyscore(this.keys.driftCandles(market, interval), fromSec, `(${toSec}`));
    return lines.map((l) => JSON.parse(l) as RecordedCandle);
  }

  async recordDecision(d: RecordedDecision): Promise<void> {
    await withStore('recordDecision', () =>
      this.scripts.appendRecord(this.keys.driftDecisions(), d.candleTime, JSON.stringify(d), d.candleTime - this.limits.retentionSec, this.limits.maxEntries, false));
  }

  async decisions(fromSec: number, toSec: number): Promise<RecordedDecision[]> {
    const lines = await withStore('decisions', () => this.redis.zrangebyscore(this.keys.driftDecisions(), fromSec, `(${toSec}`));
    return lines.map((l) => JSON.parse(l) as RecordedDecision);
  }

  async recordBalances(s: RecordedBalances): Promise<void> {
    await withStore('recordBalances', () =>
      this.scripts.appendRecord(this.keys.driftBalances(), s.marketMs, JSON.stringify(s), s.marketMs - this.limits.retentionSec * 1000, this.limits.maxEntries, true));
  }

  async balancesAt(marketMs: number): Promise<RecordedBalances | undefined> {
    const lines = await withStore('balancesAt', () => this.redis.zrevrangebyscore(this.keys.driftBalances(), marketMs, '-inf', 'LIMIT', 0, 1));
    return lines[0] === undefined ? undefined : (JSON.parse(lines[0]) as RecordedBalances);
  }

  async firstBalancesFrom(marketMs: number): Promise<RecordedBalances | undefined> {
    const lines = await withStore('firstBalancesFrom', () => this.redis.zrangebyscore(this.keys.driftBalances(), marketMs, '+inf', 'LIMIT', 0, 1));
    return lines[0] === undefined ? undefined : (JSON.parse(lines[0]) as RecordedBalances);
  }

  async recordVersion(v: RecordedVersion): Promise<void> {
    await withStore('recordVersion', () =>
      this.scripts.appendRecord(this.keys.driftVersions(), v.marketMs, JSON.stringify(v), v.marketMs - this.limits.retentionSec * 1000, this.limits.maxEntries, false));
  }

  async versions(toMarketMs: number): Promise<RecordedVersion[]> {
    const lines = await withStore('versions', () => this.redis.zrangebyscore(this.keys.driftVersions(), '-inf', toMarketMs));
    return lines.map((l) => JSON.parse(l) as RecordedVersion);
  }

  async markRun(mark: RunMark): Promise<void> {
    const key = this.keys.driftRun(mark.runId);
    const ttlSec = this.limits.retentionSec;
    await withStore('markRun', async () => {
      const m = this.redis.multi().hset(key, runMarkFields(mark)).expire(key, Math.max(60, ttlSec));
      if (mark.event === 'start') {
        m.zadd(this.keys.driftRuns(), mark.marketMs, mark.runId).zremrangebyscore(this.keys.driftRuns(), '-inf', `(${mark.marketMs - ttlSec * 1000}`);
      }
      await m.exec();
    });
  }

  async runs(fromMarketMs: number, toMarketMs: number): Promise<DaemonRun[]> {
    // Every run kept (a few per day): whether the newest may still run depends on the ones after `to`.
    const ids = await withStore('runs', () => this.redis.zrangebyscore(this.keys.driftRuns(), '-inf', '+inf'));
    if (ids.length === 0) return [];
    const p = this.redis.pipeline();
    for (const id of ids) p.hgetall(this.keys.driftRun(id));
    const replies = await withStore('runs', () => p.exec());
    const all = ids.flatMap((id, i) => runFromFields(id, (replies?.[i]?.[1] ?? {}) as Record<string, string>) ?? []);
    return runsOverlapping(all, fromMarketMs, toMarketMs);
  }
}

import type { Interval } from '../../domain/candle';
import {
  DEFAULT_DEPLOYMENT_LOG_LIMITS, runFromFields, runMarkFields, runsOverlapping,
  type DaemonRun, type DeploymentLog, type DeploymentLogLimits, type RecordedBalances, type RecordedCandle, type RecordedDecision, type RecordedVersion, type RunMark,
} from '../deployment-log-port';

/** A time-ordered list with the Redis log's rules: first record per time wins (when asked), retention and a cap. */
class TimeLog<T> {
  private readonly items: { score: number; value: T }[] = [];

  constructor(private readonly limits: DeploymentLogLimits, private readonly retentionUnit: number) {}

  add(score: number, value: T, firstOnly: boolean): boolean {
    let added = false;
    if (!firstOnly || !this.items.some((x) => x.score === score)) {
      let i = this.items.length;
      while (i > 0 && this.items[i - 1]!.score > score) i--;
      this.items.splice(i, 0, { score, value });
      added = true;
    }
    const oldest = score - this.limits.retentionSec * this.retentionUnit;
    while (this.items.length > 0 && (this.items[0]!.score < oldest || this.items.length > this.limits.maxEntries)) this.items.shift();
    return added;
  }

  range(from: number, toExclusive: number): T[] {
    return this.items.filter((x) => x.score >= from && x.score < toExclusive).map((x) => x.value);
  }

  atOrAfter(score: number): T | undefined {
    return this.items.find((x) => x.score >= score)?.value;
  }

  atOrBefore(score: number): T | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) if (this.items[i]!.score <= score) return this.items[i]!.value;
    return undefined;
  }
}

/** The deployment log in process memory (paper without Redis): same contract, nothing survives the process. */
export class InMemoryDeploymentLog implements DeploymentLog {
  private readonly candleLogs = new Map<string, TimeLog<RecordedCandle>>();
  private readonly decisionLog: TimeLog<RecordedDecision>;
  private readonly balanceLog: TimeLog<RecordedBalances>;
  private readonly versionLog: TimeLog<RecordedVersion>;
  private readonly runFields = new Map<string, Record<string, string>>();

  constructor(private readonly limits: DeploymentLogLimits = DEFAULT_DEPLOYMENT_LOG_LIMITS) {
    this.decisionLog = new TimeLog(limits, 1);
    this.balanceLog = new TimeLog(limits, 1000);
    this.versionLog = new TimeLog(limits, 1000);
  }

  async recordCandle(c: RecordedCandle): Promise<boolean> {
    const key = `${c.market}|${c.interval}`;
    let log = this.candleLogs.get(key);
    if (log === undefined) this.candleLogs.set(key, (log = new TimeLog(this.limits, 1)));
    return log.add(c.time, c, true);
  }

  async candles(market: string, interval: Interval, fromSec: number, toSec: number): Promise<RecordedCandle[]> {
    return this.candleLogs.get(`${market}|${interval}`)?.range(fromSec, toSec) ?? [];
  }

  async recordDecision(d: RecordedDecision): Promise<void> {
    this.decisionLog.add(d.candleTime, d, false);
  }

  async decisions(fromSec: number, toSec: number): Promise<RecordedDecision[]> {
    return this.decisionLog.range(fromSec, toSec);
  }

  async recordBalances(s: RecordedBalances): Promise<void> {
    this.balanceLog.add(s.marketMs, s, true);
  }

  async balancesAt(marketMs: number): Promise<RecordedBalances | undefined> {
    return this.balanceLog.atOrBefore(marketMs);
  }

  async firstBalancesFrom(marketMs: number): Promise<RecordedBalances | undefined> {
    return this.balanceLog.atOrAfter(marketMs);
  }

  async recordVersion(v: RecordedVersion): Promise<void> {
    this.versionLog.add(v.marketMs, v, false);
  }

  async versions(toMarketMs: number): Promise<RecordedVersion[]> {
    return this.versionLog.range(-Infinity, toMarketMs + 1);
  }

  async markRun(mark: RunMark): Promise<void> {
    this.runFields.set(mark.runId, { ...(this.runFields.get(mark.runId) ?? {}), ...runMarkFields(mark) });
  }

  async runs(fromMarketMs: number, toMarketMs: number): Promise<DaemonRun[]> {
    return runsOverlapping([...this.runFields.entries()].flatMap(([id, f]) => runFromFields(id, f) ?? []), fromMarketMs, toMarketMs);
  }
}

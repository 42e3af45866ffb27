import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import { withStore } from '../store/redis';

export interface DriftCheckSummary {
  readonly atMs: number;
  /** The window checked, Unix s of market time. */
  readonly from: number;
  readonly to: number;
  readonly unexplained: number;
  readonly allowed: number;
  readonly first: readonly string[];
}

/** The last drift checks of the deployment, newest first, as the console lists them. */
export interface DriftCheckList {
  add(check: DriftCheckSummary): Promise<void>;
  recent(): Promise<DriftCheckSummary[]>;
}

const KEPT = 100;

/**
 * In Redis, one sorted set per account scored by the window's end: every replica adds its checks,
 * and two replicas checking the same window write one member (the member is the check without the
 * time it finished), so any replica lists the same checks.
 */
export class RedisDriftCheckList implements DriftCheckList {
  constructor(private readonly redis: RedisConnection, private readonly keys: StoreKeys) {}

  async add(c: DriftCheckSummary): Promise<void> {
    const member = JSON.stringify({ from: c.from, to: c.to, unexplained: c.unexplained, allowed: c.allowed, first: c.first, atMs: Math.floor(c.to * 1000) });
    const key = this.keys.driftChecks();
    await withStore('addDriftCheck', () => this.redis.multi().zadd(key, c.to, member).zremrangebyrank(key, 0, -(KEPT + 1)).exec());
  }

  async recent(): Promise<DriftCheckSummary[]> {
    const members = await withStore('readDriftChecks', () => this.redis.zrevrange(this.keys.driftChecks(), 0, KEPT - 1));
    return members.flatMap((m) => {
      try {
        return [JSON.parse(m) as DriftCheckSummary];
      } catch {
        return [];
      }
    });
  }
}

export class InMemoryDriftCheckList implements DriftCheckList {
  private readonly checks: DriftCheckSummary[] = [];

  add(c: DriftCheckSummary): Promise<void> {
    this.checks.unshift({ from: c.from, to: c.to, unexplained: c.unexplained, allowed: c.allowed, first: c.first, atMs: Math.floor(c.to * 1000) });
    this.checks.length = Math.min(this.checks.length, KEPT);
    return Promise.resolve();
  }

  recent(): Promise<DriftCheckSummary[]> {
    return Promise.resolve([...this.checks]);
  }
}

import type { RedisConnection } from './redis';
import { withStore } from './redis';
import type { StoreKeys } from './keys';

/**
 * Where the guardrails' state (peaks, losses, stops in force: risk/guardrails/) survives a restart, as
 * one JSON document per account: a drawdown stop that tripped at 3 a.m. must still hold after a crash.
 */
export interface GuardStateStore {
  load(): Promise<string | undefined>;
  save(json: string): Promise<void>;
}

export class RedisGuardStateStore implements GuardStateStore {
  constructor(private readonly redis: RedisConnection, private readonly keys: StoreKeys) {}

  async load(): Promise<string | undefined> {
    return (await withStore('read guardrail state', () => this.redis.get(this.keys.guardState()))) ?? undefined;
  }

  async save(json: string): Promise<void> {
    await withStore('write guardrail state', () => this.redis.set(this.keys.guardState(), json));
  }
}

/** Paper mode without Redis: the journal is in memory too, so nothing of either outlives the process. */
export class InMemoryGuardStateStore implements GuardStateStore {
  private json: string | undefined;

  async load(): Promise<string | undefined> {
    return this.json;
  }

  async save(json: string): Promise<void> {
    this.json = json;
  }
}

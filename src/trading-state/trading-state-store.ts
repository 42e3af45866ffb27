import type Redis from 'ioredis';
import { ConfigError } from '../domain/errors';
import type { StoreKeys } from '../store/keys';
import { withStore } from '../store/redis';
import { TRADING_STATES, type TradingState } from '../risk/trading-state';

/**
 * Where an operator's run-time trading state lives, so `tradebot pause|resume|reduce-only` (another
 * process) can switch a running daemon. The daemon polls `read()`; the CLI calls `write()`.
 * A set state also survives a restart: a paused daemon comes back paused.
 */
export interface TradingStateRecord {
  readonly state: TradingState;
  readonly reason: string;
  /** Unix ms when it was written. */
  readonly atMs: number;
}

export interface TradingStateStore {
  read(): Promise<TradingStateRecord | undefined>;
  write(record: TradingStateRecord): Promise<void>;
}

export function parseTradingState(value: string): TradingState {
  const v = value.trim().toLowerCase();
  const state = v === 'reduce-only' || v === 'reduce_only' ? 'reducing' : v === 'paused' ? 'halted' : v;
  if (!(TRADING_STATES as readonly string[]).includes(state)) {
    throw new ConfigError(`unknown trading state "${value}" (active, halted, reducing)`, { path: 'tradingState' });
  }
  return state as TradingState;
}

/** A HASH (state, reason, atMs) in Redis, at StoreKeys.tradingState(). */
export class RedisTradingStateStore implements TradingStateStore {
  private readonly key: string;

  constructor(private readonly redis: Redis, keys: StoreKeys) {
    this.key = keys.tradingState();
  }

  async read(): Promise<TradingStateRecord | undefined> {
    const fields = await withStore('readTradingState', () => this.redis.hgetall(this.key));
    const state = fields['state'];
    if (state === undefined) return undefined;
    return { state: parseTradingState(state), reason: fields['reason'] ?? '', atMs: Number(fields['atMs'] ?? 0) };
  }

  async write(record: TradingStateRecord): Promise<void> {
    await withStore('writeTradingState', () =>
      this.redis.hset(this.key, 'state', record.state, 'reason', record.reason, 'atMs', String(record.atMs)));
  }
}

/** In-process (paper mode without Redis): set through signals, read by the same process. */
export class InMemoryTradingStateStore implements TradingStateStore {
  private record: TradingStateRecord | undefined;
  read(): Promise<TradingStateRecord | undefined> {
    return Promise.resolve(this.record);
  }
  write(record: TradingStateRecord): Promise<void> {
    this.record = record;
    return Promise.resolve();
  }
}

import type { StoreKeys } from './keys';
import { withStore, type RedisConnection } from './redis';
import type { TrailingStopRecord, TrailingStore } from './trailing-store-port';

/** Ended records are kept this long for `tradebot orders`-style inspection and tests, then expire. */
const ENDED_TTL_SECONDS = 30 * 86_400;

/**
 * The trailing-stop journal in Redis: one JSON string per logical order and a set of the active ids,
 * written together in one MULTI (both keys share the account's hash tag). No compare-and-set: only
 * the holder of the (strategy, market) lease moves a trailing stop, and every leg it sends is fenced
 * by that lease in the order journal.
 */
export class RedisTrailingStore implements TrailingStore {
  constructor(private readonly redis: RedisConnection, private readonly keys: StoreKeys) {}

  async put(record: TrailingStopRecord): Promise<void> {
    const key = this.keys.trailingStop(record.id);
    const json = JSON.stringify(record);
    await withStore('putTrailingStop', async () => {
      const tx = this.redis.multi();
      if (record.phase === 'ended') tx.set(key, json, 'EX', ENDED_TTL_SECONDS).srem(this.keys.activeTrailingStops(), record.id);
      else tx.set(key, json).sadd(this.keys.activeTrailingStops(), record.id);
      const replies = await tx.exec();
      const failed = replies?.find(([err]) => err !== null);
      if (failed !== undefined) throw failed[0] as Error;
    });
  }

  async get(id: string): Promise<TrailingStopRecord | undefined> {
    const json = await withStore('getTrailingStop', () => this.redis.get(this.keys.trailingStop(id)));
    return json === null ? undefined : (JSON.parse(json) as TrailingStopRecord);
  }

  async listActive(): Promise<TrailingStopRecord[]> {
    const ids = await withStore('listTrailingStops', () => this.redis.smembers(this.keys.activeTrailingStops()));
    const out: TrailingStopRecord[] = [];
    for (const id of ids.sort()) {
      const record = await this.get(id);
      if (record !== undefined && record.phase !== 'ended') out.push(record);
    }
    return out;
  }
}

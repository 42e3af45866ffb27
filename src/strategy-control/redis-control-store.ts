import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import { withStore } from '../store/redis';
import { parsePromoted, parseRequest, type ControlReply, type ControlRequest, type PromotedVersion, type StrategyControlStore } from './control-store';

const REPLY_TTL_SECONDS = 600;

/** The control keys of one account in Redis (StoreKeys.strategy*): shared by every replica and the CLI. */
export class RedisStrategyControlStore implements StrategyControlStore {
  constructor(private readonly redis: RedisConnection, private readonly keys: StoreKeys) {}

  async readPromoted(): Promise<Record<string, PromotedVersion>> {
    const all = await withStore('readPromotedVersions', () => this.redis.hgetall(this.keys.strategyVersions()));
    const out: Record<string, PromotedVersion> = {};
    for (const [name, text] of Object.entries(all)) {
      const record = parsePromoted(text);
      if (record !== undefined) out[name] = record;
    }
    return out;
  }

  async writePromoted(strategy: string, record: PromotedVersion): Promise<void> {
    // HSET is acknowledged once applied; with appendonly (deploy/redis) it is on disk at the next fsync.
    await withStore('writePromotedVersion', () => this.redis.hset(this.keys.strategyVersions(), strategy, JSON.stringify(record)));
  }

  async putRequest(request: ControlRequest): Promise<void> {
    await withStore('putStrategyRequest', () => this.redis.rpush(this.keys.strategyRequests(), JSON.stringify(request)));
  }

  async takeRequests(): Promise<ControlRequest[]> {
    const key = this.keys.strategyRequests();
    const texts = await withStore('takeStrategyRequests', async () => {
      const [[, items]] = (await this.redis.multi().lrange(key, 0, -1).del(key).exec()) as [[unknown, string[]], unknown];
      return items;
    });
    return texts.map(parseRequest).filter((r): r is ControlRequest => r !== undefined);
  }

  async putReply(reply: ControlReply): Promise<void> {
    await withStore('putStrategyReply', () => this.redis.set(this.keys.strategyReply(reply.id), JSON.stringify(reply), 'EX', REPLY_TTL_SECONDS));
  }

  async readReply(id: string): Promise<ControlReply | undefined> {
    const text = await withStore('readStrategyReply', () => this.redis.get(this.keys.strategyReply(id)));
    return text === null ? undefined : (JSON.parse(text) as ControlReply);
  }

  async writeStatus(json: string): Promise<void> {
    await withStore('writeStrategyShadow', () => this.redis.set(this.keys.strategyShadow(), json));
  }

  async readStatus(): Promise<string | undefined> {
    return (await withStore('readStrategyShadow', () => this.redis.get(this.keys.strategyShadow()))) ?? undefined;
  }
}

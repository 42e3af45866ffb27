import type { FrozenConfig } from '../config/load';
import { usesRedis } from '../config/redis-target';
import { FileAuditLog, RedisAuditLog } from '../operator/audit-log';
import { OperatorActions, type OperatorStores } from '../operator/operator-actions';
import type { StoreKeys } from '../store/keys';
import type { RedisConnection } from '../store/redis';
import { FileTradingStateStore } from '../trading-state/file-trading-state-store';
import { RedisTradingStateStore } from '../trading-state/trading-state-store';
import { accountKeys, openAccountStore } from './account-store';
import { strategyStateDir, tradingStateDir } from './state-dirs';
import { controlStore } from './strategy-versions-wiring';

/**
 * The stores the operator's actions go through, the same ones the daemon reads: the account's Redis
 * keys, or without Redis the files in the strategies' state directory (one daemon on this machine).
 */
export function operatorStores(config: FrozenConfig, baseDir: string, redis: RedisConnection | undefined, keys: StoreKeys): OperatorStores {
  if (redis === undefined) {
    const dir = tradingStateDir(config, baseDir);
    return {
      tradingState: new FileTradingStateStore(dir), tradingStateWhere: `file ${dir}/trading-state.json`,
      control: controlStore(strategyStateDir(config, baseDir), undefined, keys), audit: new FileAuditLog(dir),
    };
  }
  return {
    tradingState: new RedisTradingStateStore(redis, keys), tradingStateWhere: `account ${keys.account}`,
    control: controlStore('', redis, keys), audit: new RedisAuditLog(redis, keys),
  };
}

/** For a CLI command: the actions over a short-lived connection (closed after `job`). */
export async function withOperatorActions<T>(config: FrozenConfig, env: NodeJS.ProcessEnv, cwd: string, purpose: string, job: (actions: OperatorActions, stores: OperatorStores) => Promise<T>): Promise<T> {
  if (!usesRedis(config)) {
    const stores = operatorStores(config, cwd, undefined, accountKeys(config, env));
    return job(new OperatorActions(stores), stores);
  }
  const account = await openAccountStore(config, env, purpose);
  try {
    const stores = operatorStores(config, cwd, account.redis, account.keys);
    return await job(new OperatorActions(stores), stores);
  } finally {
    await account.close();
  }
}

import { startSentinelGroup } from '../test/helpers/redis-topology';
import { connectRedis, createRedis } from '../src/store/redis';
import { StoreKeys } from '../src/store/keys';
import { RedisLeaseStore } from '../src/store/lease-store';
import type { Lease } from '../src/store/lease-store-port';
import { RedisOrderStore } from '../src/store/order-store';
import { Decimal } from '../src/domain/decimal';
import type { NewOrderRecord } from '../src/store/order-store-port';
import type { BenchRow } from './bench-types';

const ROUNDS = 10;
let seq = 0;

function newOrder(): NewOrderRecord {
  seq++;
  return {
    clientOrderId: `tb-bench-${seq}`, strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit',
    amount: new Decimal('0.001'), price: '41000.5', activationPrice: new Decimal('41000'), candleTime: 1_700_000_000,
  };
}
const PER_ROUND = 200;

/**
 * What `redis.replicaAcks: 1` costs per order: the journal write of a submitted order (recordSubmit)
 * with and without WAIT for one replica, on a primary with two loopback replicas, in alternating
 * rounds (the machine's drift hits both). Loopback replication is the floor: across hosts add the
 * network round trip to the replica.
 */
export async function run(): Promise<BenchRow[]> {
  const group = await startSentinelGroup(2);
  const redis = createRedis({ kind: 'sentinel', sentinels: group.sentinels, name: group.name, tls: false }, { lazyConnect: true });
  try {
    await connectRedis(redis, 10_000);
    const keys = StoreKeys.forApiKey('bench-acks', 'tbbench-acks');
    const lease = (await new RedisLeaseStore(redis, keys).acquire('sma-cross', 'BTC_USDT', 'bench', 600_000)) as Lease;
    const stores = {
      '0': new RedisOrderStore({ redis, keys }),
      '1': new RedisOrderStore({ redis, keys, replicaAcks: { replicas: 1, timeoutMs: 500 } }),
    };
    const us: Record<'0' | '1', number[]> = { '0': [], '1': [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const acks of ['0', '1'] as const) {
        for (let i = 0; i < PER_ROUND; i++) {
          const started = process.hrtime.bigint();
          await stores[acks].recordSubmit(newOrder(), lease);
          us[acks].push(Number(process.hrtime.bigint() - started) / 1000);
        }
      }
    }
    const q = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))] as number;
    return (['0', '1'] as const).flatMap((acks) => [
      { name: `journal write of a submitted order, replicaAcks ${acks}: p50`, value: Math.round(q(us[acks], 0.5)), unit: 'us', note: `${ROUNDS * PER_ROUND} writes, 2 loopback replicas` },
      { name: `journal write of a submitted order, replicaAcks ${acks}: p99`, value: Math.round(q(us[acks], 0.99)), unit: 'us' },
    ]);
  } finally {
    redis.disconnect();
    await group.stop();
  }
}

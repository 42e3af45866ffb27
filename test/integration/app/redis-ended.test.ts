import { Writable } from 'node:stream';
import { DaemonEventBus } from '../../../src/domain/daemon-event';
import { Registry } from 'prom-client';
import { parseConfig } from '../../../src/config/load';
import { SystemClock } from '../../../src/core/clock';
import { createLogger } from '../../../src/log/logger';
import { createMetrics } from '../../../src/metrics/registry';
import type { DaemonContext } from '../../../src/app/daemon-context';
import { openState } from '../../../src/app/state-wiring';
import { eventually } from '../../helpers/eventually';
import { testRedisUrl, uniquePrefix } from '../store/redis-test-context';

// A Redis client that ends for good (ioredis gives up, or a bug closes it) outside a stop never
// reconnects: the daemon must end (exit 1, the supervisor restarts it), not run on without its journal.

function context(failures: Error[]): DaemonContext {
  const env = { TRADEBOT_REDIS_URL: testRedisUrl() };
  const config = parseConfig({
    mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'unused.csv' }], balances: { USDT: '100' } },
    redis: { keyPrefix: uniquePrefix().replace(':', '-') },
    strategies: { enabled: [{ name: 'sma-cross', markets: ['BTC_USDT'] }] },
  }, env);
  const clock = new SystemClock();
  const log = createLogger({ level: 'fatal', destination: new Writable({ write(_c, _e, done) { done(); } }) });
  return {
    config, baseDir: '.', env, configFile: undefined, log,
    metrics: createMetrics(new Registry(), { defaultMetrics: false }), wallClock: clock, marketNow: clock,
    onRedisUp: () => undefined, closers: [], schedulers: [], fail: (e) => failures.push(e), events: new DaemonEventBus(),
  };
}

test('the daemon\'s Redis client ending outside a stop is fatal, naming why', async () => {
  const failures: Error[] = [];
  const ctx = context(failures);
  const opened = await openState(ctx, new AbortController().signal);
  opened.redis!.disconnect(); // what ioredis does when it gives up: status "end", no reconnect
  await eventually(async () => { if (failures.length === 0) throw new Error('not heard yet'); });
  expect(failures.map((e) => e.message)).toEqual([expect.stringContaining('Redis connection ended for good outside a stop')]);
});

test('closing it in a stop is not', async () => {
  const failures: Error[] = [];
  const ctx = context(failures);
  const redis = (await openState(ctx, new AbortController().signal)).redis!;
  for (const closer of [...ctx.closers].reverse()) await closer.close();
  await eventually(async () => { if (redis.status !== 'end') throw new Error('not ended yet'); });
  await new Promise((r) => setImmediate(r));
  expect(failures).toEqual([]);
});

import { StoreKeys } from '../../../src/store/keys';
import { RedisDeploymentLog } from '../../../src/store/deployment-log';
import type { DeploymentLog, DeploymentLogLimits, RecordedCandle } from '../../../src/store/deployment-log-port';
import { InMemoryDeploymentLog } from '../../../src/store/memory/in-memory-deployment-log';
import { RedisTestContext, TOPOLOGIES } from './redis-test-context';

function candle(time: number, close = '100.5', source: RecordedCandle['source'] = 'live'): RecordedCandle {
  return { market: 'BTC_USDT', interval: '1m', time, open: '100', high: '101', low: '99', close, volume: '2.5', volumeMoney: '250', source, stale: false, receivedMarketMs: (time + 61) * 1000 };
}

const adapters: [string, (limits?: DeploymentLogLimits) => Promise<{ log: DeploymentLog; close: () => Promise<void> }>][] = [
  ['memory', async (limits) => ({ log: new InMemoryDeploymentLog(limits), close: async () => undefined })],
  ...TOPOLOGIES.map((topology): (typeof adapters)[number] => [`Redis ${topology}`, async (limits) => {
    const ctx = new RedisTestContext(topology);
    const redis = await ctx.connection();
    return { log: new RedisDeploymentLog(redis, new StoreKeys('drift-test', ctx.prefix()), limits), close: () => ctx.cleanup() };
  }]),
];

describe.each(adapters)('deployment log (%s)', (_name, open) => {
  let close: () => Promise<void> = async () => undefined;
  afterEach(() => close());

  it('keeps the first copy of a candle, exactly as recorded, in time order and by range', async () => {
    const o = await open();
    close = o.close;
    expect(await o.log.recordCandle(candle(120))).toBe(true);
    expect(await o.log.recordCandle(candle(60, '99.10'))).toBe(true);
    // A later, corrected copy of an acted-on candle never replaces it.
    expect(await o.log.recordCandle(candle(120, '555'))).toBe(false);
    const got = await o.log.candles('BTC_USDT', '1m', 0, 1000);
    expect(got.map((c) => [c.time, c.close])).toEqual([[60, '99.10'], [120, '100.5']]);
    expect(await o.log.candles('BTC_USDT', '1m', 60, 120)).toHaveLength(1);
    expect(await o.log.candles('BTC_USDT', '5m', 0, 1000)).toEqual([]);
  });

  it('drops candles past the retention and past the cap', async () => {
    const o = await open({ retentionSec: 600, maxEntries: 5 });
    close = o.close;
    for (let t = 0; t <= 1200; t += 60) await o.log.recordCandle(candle(t));
    const got = await o.log.candles('BTC_USDT', '1m', 0, 10_000);
    expect(got.map((c) => c.time)).toEqual([960, 1020, 1080, 1140, 1200]);
  });

  it('stores decisions by candle time and balance snapshots by market time', async () => {
    const o = await open();
    close = o.close;
    await o.log.recordDecision({ strategy: 's', market: 'BTC_USDT', candleTime: 60, kind: 'stop-limit', outcome: 'denied', rule: 'trading_halted', clientOrderIds: [], marketMs: 121_000 });
    await o.log.recordDecision({ strategy: 's', market: 'BTC_USDT', candleTime: 120, kind: 'stop-limit', outcome: 'accepted', clientOrderIds: ['tb-a'], marketMs: 181_000 });
    expect((await o.log.decisions(0, 100)).map((d) => d.rule)).toEqual(['trading_halted']);
    expect(await o.log.decisions(0, 1000)).toHaveLength(2);
    await o.log.recordBalances({ marketMs: 1000, balances: { USDT: { available: '10', freeze: '0' } } });
    await o.log.recordBalances({ marketMs: 5000, balances: { USDT: { available: '7', freeze: '3' } } });
    expect((await o.log.balancesAt(4999))?.balances['USDT']?.available).toBe('10');
    expect((await o.log.balancesAt(5000))?.balances['USDT']?.freeze).toBe('3');
    expect(await o.log.balancesAt(999)).toBeUndefined();
  });

  it('keeps runs: a stopped one ends at its stop, a killed one at its last heartbeat', async () => {
    const o = await open();
    close = o.close;
    await o.log.markRun({ runId: 'a', event: 'start', marketMs: 1000, atMs: 1 });
    await o.log.markRun({ runId: 'a', event: 'heartbeat', marketMs: 5000, atMs: 2 });
    await o.log.markRun({ runId: 'a', event: 'stop', marketMs: 6000, atMs: 3 });
    await o.log.markRun({ runId: 'b', event: 'start', marketMs: 9000, atMs: 4 });
    await o.log.markRun({ runId: 'b', event: 'heartbeat', marketMs: 12_000, atMs: 5 });
    const runs = await o.log.runs(0, 20_000);
    expect(runs.map((r) => [r.runId, r.startedMarketMs, r.lastSeenMarketMs, r.stoppedMarketMs])).toEqual([['a', 1000, 6000, 6000], ['b', 9000, 12_000, undefined]]);
    expect((await o.log.runs(7000, 20_000)).map((r) => r.runId)).toEqual(['b']);
  });
});

import { Decimal } from '../../../src/domain/decimal';
import { classifier } from '../../../src/drift/classify-difference';
import type { IntentOutcome } from '../../../src/drift/drift-types';
import { clipToRecords } from '../../../src/drift/recorded-window';
import { runSpan, SETTLE_MARGIN_SEC } from '../../../src/drift/run-span';
import { versionChangeOf } from '../../../src/drift/version-change';
import type { DaemonRun } from '../../../src/store/deployment-log-port';
import { InMemoryDeploymentLog } from '../../../src/store/memory/in-memory-deployment-log';

const T = 1_700_000_040;

describe('clipToRecords: a window never fails for starting before the records', () => {
  test('a window that starts before the first balance snapshot begins at it, the asked start kept', async () => {
    const log = new InMemoryDeploymentLog();
    await log.recordBalances({ marketMs: (T + 300) * 1000, balances: {} });
    expect(await clipToRecords(log, T, T + 600)).toEqual({ from: T + 300, to: T + 600, askedFrom: T });
    expect(await clipToRecords(log, T + 360, T + 600)).toEqual({ from: T + 360, to: T + 600 });
  });

  test('nothing recorded inside the window: null, not a window', async () => {
    const log = new InMemoryDeploymentLog();
    expect(await clipToRecords(log, T, T + 600)).toBeNull();
    await log.recordBalances({ marketMs: (T + 600) * 1000, balances: {} });
    expect(await clipToRecords(log, T, T + 600)).toBeNull();
  });
});

describe('runSpan: the window of a recorded run', () => {
  const run = (id: string, start: number, end: number, stopped: boolean): DaemonRun => ({
    runId: id, startedMarketMs: start * 1000, startedAtMs: 0, lastSeenMarketMs: end * 1000, lastSeenAtMs: 0, stoppedMarketMs: stopped ? end * 1000 : undefined,
  });
  const runs = [run('b', T + 3600, T + 7200, false), run('a', T, T + 1800, true)];

  test('last, all, and a run id; a run without a stop mark loses its settle margin', () => {
    expect(runSpan(runs, 'a')).toMatchObject({ from: T, to: Math.ceil((T + 1800) / 60) * 60 });
    expect(runSpan(runs, 'last')).toMatchObject({ from: T + 3600, to: Math.floor((T + 7200 - SETTLE_MARGIN_SEC) / 60) * 60 });
    const all = runSpan(runs, 'all');
    expect(all.from).toBe(T);
    expect(all.runs.map((r) => r.runId)).toEqual(['a', 'b']);
    expect(all.description[1]).toMatch(/^run b: .* market time \(no stop mark: killed, or still running\)$/);
  });

  test('no runs, an unknown id, a run too short: errors that say what to give', () => {
    expect(() => runSpan([], 'last')).toThrow(/no daemon run is recorded/);
    expect(() => runSpan(runs, 'zz')).toThrow(/--run zz: no such run; give last, all or a run id \(the newest: a, b\)/);
    expect(() => runSpan([run('c', T, T + 60, false)], 'last')).toThrow(/too short/);
  });
});

describe('version_change: differences live ran with another version or parameters', () => {
  const out = (over: Partial<IntentOutcome> = {}): IntentOutcome => ({
    intentId: 'tb-s-1', strategy: 's', market: 'BTC_USDT', candleTime: T, kind: 'stop_limit', side: 'buy',
    amount: new Decimal('1'), price: new Decimal('1'), filledAmount: new Decimal('0'), filledMoney: new Decimal('0'), fee: new Decimal('0'), ...over,
  });
  const base = { kind: 'only_live' as const, intentId: 'tb-s-1', strategy: 's', market: 'BTC_USDT', candleTime: T, fields: [] };
  const recorded = [{ strategy: 's', version: 'aaaaaa', marketMs: 0 }, { strategy: 's', version: 'bbbbbb', marketMs: (T + 600) * 1000 }];
  const change = versionChangeOf('bbbbbb', '{"n":2}', recorded, 60);

  test('the journal names the version or parameters that placed the order', () => {
    expect(change({ ...base, live: out({ version: 'aaaaaa' }) })).toBe('placed live by version aaaaaa; the replay ran bbbbbb');
    expect(change({ ...base, live: out({ version: 'bbbbbb', params: '{"n":1}' }) })).toBe('placed live with parameters {"n":1}; the replay ran {"n":2}');
    expect(change({ ...base, live: out({ version: 'bbbbbb', params: '{"n":2}' }) })).toBeUndefined();
  });

  test('an intent only the replay made: the version recorded live when its candle closed', () => {
    expect(change({ ...base, kind: 'only_replay', replay: out() })).toBe('version aaaaaa was live when this candle closed; the replay ran bbbbbb');
    expect(change({ ...base, kind: 'only_replay', candleTime: T + 600, replay: out({ candleTime: T + 600 }) })).toBeUndefined();
  });

  test('the classifier gives it its own cause before data, latency and unexplained', () => {
    const classify = classifier({
      interval: () => '1m', downtime: [], decisions: () => [], corrected: () => true, versionChange: change,
      recordedCandle: (m, i, t) => ({ market: m, interval: i, time: t, open: '1', high: '1', low: '1', close: '1', volume: '1', volumeMoney: '1', source: 'live', stale: false, receivedMarketMs: (t + 61) * 1000 }),
    });
    expect(classify({ ...base, kind: 'only_replay', replay: out() }, [])).toEqual({ cause: 'version_change', detail: 'version aaaaaa was live when this candle closed; the replay ran bbbbbb' });
    expect(classify({ ...base, kind: 'only_replay', candleTime: T + 600, replay: out({ candleTime: T + 600 }) }, []).cause).toBe('data');
  });
});

import { Decimal } from '../../../src/domain/decimal';
import { classifier, type DriftEvidence, type Unclassified } from '../../../src/drift/classify-difference';
import { compareOutcomes } from '../../../src/drift/compare-outcomes';
import { downtimeWindows } from '../../../src/drift/downtime';
import type { IntentOutcome } from '../../../src/drift/drift-types';
import type { RecordedCandle, RecordedDecision } from '../../../src/store/deployment-log-port';

const T = 1_700_000_040; // a candle open time (1m)

function outcome(candleTime: number, over: Partial<IntentOutcome> = {}): IntentOutcome {
  return {
    intentId: `tb-s-00000000-${candleTime.toString(36)}`, strategy: 's', market: 'BTC_USDT', candleTime, kind: 'stop_limit', side: 'buy',
    amount: new Decimal('0.001'), price: new Decimal('100'), filledAmount: new Decimal('0.001'), filledMoney: new Decimal('0.1'), fee: new Decimal('0.0001'),
    firstFillSec: candleTime + 90, ...over,
  };
}

function candle(time: number, over: Partial<RecordedCandle> = {}): RecordedCandle {
  return { market: 'BTC_USDT', interval: '1m', time, open: '1', high: '1', low: '1', close: '1', volume: '1', volumeMoney: '1', source: 'live', stale: false, receivedMarketMs: (time + 61) * 1000, ...over };
}

function evidence(over: Partial<Omit<DriftEvidence, 'decisions'>> & { candles?: RecordedCandle[]; decisions?: RecordedDecision[] } = {}): DriftEvidence {
  const candles = over.candles ?? [candle(T), candle(T + 60), candle(T + 120)];
  const decisions = over.decisions ?? [];
  return {
    interval: () => '1m',
    recordedCandle: (_m, _i, t) => candles.find((c) => c.time === t),
    downtime: over.downtime ?? [],
    decisions: (s, m, t) => decisions.filter((d) => d.strategy === s && d.market === m && d.candleTime === t),
    corrected: over.corrected ?? (() => false),
  };
}

function diff(kind: Unclassified['kind'], fields: string[] = [], live?: IntentOutcome, replay?: IntentOutcome): Unclassified {
  const any = (live ?? replay ?? outcome(T));
  return { kind, intentId: any.intentId, strategy: 's', market: 'BTC_USDT', candleTime: any.candleTime, fields, live, replay };
}

const decision = (over: Partial<RecordedDecision>): RecordedDecision => ({ strategy: 's', market: 'BTC_USDT', candleTime: T, kind: 'stop_limit', outcome: 'accepted', clientOrderIds: [], marketMs: (T + 62) * 1000, ...over });

describe('drift causes', () => {
  it('a candle never recorded, or only as warm-up, or received inside a downtime window without a decision: daemon down', () => {
    expect(classifier(evidence({ candles: [] }))(diff('only_replay', [], undefined, outcome(T)), []).cause).toBe('daemon_down');
    expect(classifier(evidence({ candles: [candle(T, { source: 'warm-up' })] }))(diff('only_replay', [], undefined, outcome(T)), []).cause).toBe('daemon_down');
    // Killed 30 s into the candle (last heartbeat), restarted 5 minutes later.
    const down = downtimeWindows([
      { runId: 'a', startedMarketMs: 0, startedAtMs: 0, lastSeenMarketMs: (T + 30) * 1000, lastSeenAtMs: 0 },
      { runId: 'b', startedMarketMs: (T + 300) * 1000, startedAtMs: 0, lastSeenMarketMs: (T + 600) * 1000, lastSeenAtMs: 0 },
    ], 0, (T + 600) * 1000);
    expect(classifier(evidence({ downtime: down }))(diff('only_replay', [], undefined, outcome(T)), []).cause).toBe('daemon_down');
  });

  it('denied live names the rule (a pause is trading_state)', () => {
    const c = classifier(evidence({ decisions: [decision({ outcome: 'denied', rule: 'trading_state' })] }))(diff('only_replay', [], undefined, outcome(T)), []);
    expect(c).toEqual({ cause: 'denied_live', detail: 'live denied it: trading_state' });
  });

  it('an order accepted more than half an interval after its candle closed, filled differently: latency', () => {
    const ev = evidence({ decisions: [decision({ marketMs: (T + 60 + 75) * 1000 })] });
    expect(classifier(ev)(diff('different', ['fill_candles'], outcome(T), outcome(T)), []).cause).toBe('latency');
    // accepted in time: the same difference is the fill model's
    expect(classifier(evidence({ decisions: [decision({})] }))(diff('different', ['fill_candles'], outcome(T), outcome(T)), []).cause).toBe('fill_model');
  });

  it('a candle the venue corrected, on the order or between it and a fill: data', () => {
    const ev = evidence({ decisions: [decision({})], corrected: (_m, _i, t) => t === T + 60 });
    expect(classifier(ev)(diff('different', ['filled'], outcome(T), outcome(T, { firstFillSec: T + 150 })), []).cause).toBe('data');
    expect(classifier(evidence({ corrected: (_m, _i, t) => t === T }))(diff('different', ['price'], outcome(T), outcome(T)), []).cause).toBe('data');
  });

  it('a difference after an explained one on the same market inherits its cause; with none before it is unexplained', () => {
    const c = classifier(evidence({ decisions: [decision({})] }));
    const first = { ...diff('only_replay', [], undefined, outcome(T)), cause: 'daemon_down' as const, detail: '' };
    expect(c(diff('only_live', [], outcome(T + 60)), [first]).cause).toBe('daemon_down');
    expect(c(diff('only_live', [], outcome(T + 60)), []).cause).toBe('unexplained');
    // What the strategy carried into the window is named, the difference stays unexplained.
    const carried = classifier({ ...evidence({ decisions: [decision({})] }), carried: () => 'a position of 0.001' })(diff('only_live', [], outcome(T + 60)), []);
    expect(carried.cause).toBe('unexplained');
    expect(carried.detail).toContain('carried a position of 0.001 into the window');
  });

  it('compareOutcomes matches by intent, counts identical ones and classifies the rest in candle order', () => {
    const same = outcome(T);
    const late = outcome(T + 60);
    const result = compareOutcomes([same, { ...late, filledAmount: new Decimal(0) }], [same, late, outcome(T + 120)], () => '1m', classifier(evidence({ decisions: [decision({ candleTime: T + 60 })] })));
    expect(result.matched).toBe(1);
    expect(result.differences.map((d) => [d.candleTime, d.kind, d.fields.join(','), d.cause])).toEqual([
      [T + 60, 'different', 'filled', 'fill_model'],
      [T + 120, 'only_replay', '', 'fill_model'],
    ]);
  });
});

describe('downtime windows', () => {
  it('from stop records and, for killed runs, the last heartbeat; overlapping replicas merge', () => {
    const runs = [
      { runId: 'a', startedMarketMs: 1000, startedAtMs: 0, lastSeenMarketMs: 5000, lastSeenAtMs: 0, stoppedMarketMs: 5000 },
      { runId: 'b', startedMarketMs: 8000, startedAtMs: 0, lastSeenMarketMs: 12_000, lastSeenAtMs: 0 },
      { runId: 'c', startedMarketMs: 11_000, startedAtMs: 0, lastSeenMarketMs: 13_000, lastSeenAtMs: 0 },
      { runId: 'd', startedMarketMs: 20_000, startedAtMs: 0, lastSeenMarketMs: 30_000, lastSeenAtMs: 0 },
    ];
    expect(downtimeWindows(runs, 0, 30_000)).toEqual([
      { fromMarketMs: 0, toMarketMs: 1000, startedBy: 'before-first-run' },
      { fromMarketMs: 5000, toMarketMs: 8000, startedBy: 'stop' },
      { fromMarketMs: 13_000, toMarketMs: 20_000, startedBy: 'last-heartbeat' },
    ]);
  });
});

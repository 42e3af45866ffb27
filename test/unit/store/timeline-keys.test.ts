import { StoreKeys } from '../../../src/store/keys';
import { KEPT_KINDS, TIMELINE_KINDS, kindOfKey } from '../../../src/store/timeline-keys';

/** Every key StoreKeys builds, by calling each of its key methods (two ids are enough for any of them). */
function everyKey(keys: StoreKeys): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.getOwnPropertyNames(StoreKeys.prototype)) {
    if (name === 'constructor' || name === 'key' || name === 'pattern') continue;
    const method = (keys as unknown as Record<string, (a: string, b: string) => unknown>)[name]!;
    out[name] = String(method.call(keys, 'churn', 'BTC_USDT'));
  }
  return out;
}

test('every kind of key StoreKeys builds is either cleared with a market timeline or kept, never both', () => {
  const keys = new StoreKeys('abc123', 'tb:paper');
  const built = everyKey(keys);
  expect(Object.keys(built).length).toBeGreaterThan(15);
  for (const [method, key] of Object.entries(built)) {
    const kind = kindOfKey(keys, key);
    const where = [TIMELINE_KINDS.includes(kind ?? '') ? 'timeline' : undefined, KEPT_KINDS.includes(kind ?? '') ? 'kept' : undefined].filter(Boolean);
    expect({ method, kind, where }).toEqual({ method, kind: expect.any(String), where: [expect.any(String)] });
  }
  // The operator's decisions survive a new timeline; the journal, leases and drift records do not.
  expect(KEPT_KINDS.includes(kindOfKey(keys, keys.strategyVersions())!)).toBe(true);
  expect(KEPT_KINDS.includes(kindOfKey(keys, keys.tradingState())!)).toBe(true);
  for (const key of [keys.order('x'), keys.allOrders(), keys.lease('s', 'm'), keys.driftRuns(), keys.driftRun('r'), keys.driftCandles('m', '1m')]) {
    expect(TIMELINE_KINDS.includes(kindOfKey(keys, key)!)).toBe(true);
  }
});

test('kindOfKey knows only this account\'s namespace: not the live one beside it, not another account', () => {
  const paper = new StoreKeys('abc123', 'tb:paper');
  const live = new StoreKeys('abc123', 'tb');
  const other = new StoreKeys('def456', 'tb:paper');
  expect(kindOfKey(paper, paper.order('x'))).toBe('order');
  expect(kindOfKey(paper, live.order('x'))).toBeUndefined();
  expect(kindOfKey(paper, other.order('x'))).toBeUndefined();
  expect(kindOfKey(live, paper.order('x'))).toBeUndefined();
  expect(kindOfKey(paper, `${paper.base}`)).toBeUndefined();
});

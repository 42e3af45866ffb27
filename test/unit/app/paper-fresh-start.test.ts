import { CLOCK_BEHIND_TOLERANCE_MS, decidePaperStart, lastMarketMs } from '../../../src/app/paper-fresh-start';
import type { TimelineSurvey } from '../../../src/store/timeline-keys';

const HOUR = 3_600_000;
const T0 = Date.UTC(2021, 8, 18);
const run = (from: number, to: number, stopped = true): TimelineSurvey['runs'][number] => ({
  runId: `r${from}`, startedMarketMs: from, startedAtMs: 0, lastSeenMarketMs: to, lastSeenAtMs: 0, stoppedMarketMs: stopped ? to : undefined,
});
const earlier = (over: Partial<TimelineSurvey> = {}): TimelineSurvey => ({ keys: 40, orders: 12, openOrders: 2, runs: [run(T0, T0 + 2 * HOUR)], leaseHolders: [], ...over });

test('live mode is never touched, whatever the namespace holds', () => {
  for (const survey of [undefined, earlier(), earlier({ leaseHolders: ['h:1:x'] }), earlier({ runs: [] })]) {
    expect(decidePaperStart('live', { kind: 'embedded' }, survey)).toEqual({ action: 'untouched', why: 'live' });
    expect(decidePaperStart('live', { kind: 'standalone', marketNowMs: T0 }, survey)).toEqual({ action: 'untouched', why: 'live' });
  }
});

test('paper without Redis: nothing to decide', () => {
  expect(decidePaperStart('paper', { kind: 'embedded' }, undefined)).toEqual({ action: 'untouched', why: 'no-redis' });
});

test('an empty namespace: nothing earlier', () => {
  expect(decidePaperStart('paper', { kind: 'embedded' }, earlier({ keys: 0, orders: 0, openOrders: 0, runs: [] }))).toEqual({ action: 'nothing-earlier' });
});

test('the embedded simulator is a new market at every start: the earlier state is cleared', () => {
  expect(decidePaperStart('paper', { kind: 'embedded' }, earlier())).toEqual({ action: 'clear', why: 'embedded' });
  // Even with no run recorded (drift.record off): the venue is new all the same.
  expect(decidePaperStart('paper', { kind: 'embedded' }, earlier({ runs: [] }))).toEqual({ action: 'clear', why: 'embedded' });
});

test('a daemon that may still run on the namespace (unexpired leases, owner not known dead) is never cleared from under', () => {
  expect(decidePaperStart('paper', { kind: 'embedded' }, earlier({ leaseHolders: ['host:42:abc'] }))).toEqual({ action: 'shared', holders: ['host:42:abc'] });
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: T0 }, earlier({ leaseHolders: ['host:42:abc'] }))).toEqual({ action: 'shared', holders: ['host:42:abc'] });
});

test('a standalone simulator: carried over while its clock is at or after the earlier run, cleared when it went back (restarted)', () => {
  const last = T0 + 2 * HOUR;
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: last + 5000 }, earlier())).toEqual({ action: 'carry', why: 'same-market' });
  // A quick restart may read the extrapolated clock a little behind the last heartbeat: still the same market.
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: last - CLOCK_BEHIND_TOLERANCE_MS }, earlier())).toEqual({ action: 'carry', why: 'same-market' });
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: T0 }, earlier())).toEqual({ action: 'clear', why: 'clock-behind', lastMarketMs: last });
  // A SIGKILLed run ended at its last heartbeat.
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: T0 + HOUR }, earlier({ runs: [run(T0, last, false)] }))).toEqual({ action: 'clear', why: 'clock-behind', lastMarketMs: last });
  expect(decidePaperStart('paper', { kind: 'standalone', marketNowMs: T0 }, earlier({ runs: [] }))).toEqual({ action: 'carry', why: 'no-market-time' });
});

test('lastMarketMs: the newest end over the runs', () => {
  expect(lastMarketMs(earlier({ runs: [run(T0, T0 + HOUR), run(T0 + 2 * HOUR, T0 + 3 * HOUR, false)] }))).toBe(T0 + 3 * HOUR);
  expect(lastMarketMs(earlier({ runs: [] }))).toBeUndefined();
});

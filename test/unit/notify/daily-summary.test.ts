import { ManualClock } from '../../../src/core/clock';
import type { DaemonEvent } from '../../../src/domain/daemon-event';
import { DailySummary, nextSummaryAtMs, utcDay } from '../../../src/notify/daily-summary';

const day = (h: number, m = 0): number => Date.UTC(2026, 10, 28, h, m);
const fill = (id: string): DaemonEvent => ({ type: 'fill', id, atMs: 0, strategy: 's', market: 'BTC_USDT', side: 'buy', amount: '1', price: '1', fee: '0', clientOrderId: 'c' });

describe('daily summary', () => {
  test('the next run is the first HH:MM UTC strictly after now', () => {
    expect(nextSummaryAtMs(day(10), '23:55')).toBe(day(23, 55));
    expect(nextSummaryAtMs(day(23, 55), '23:55')).toBe(day(23, 55) + 86_400_000);
    expect(nextSummaryAtMs(day(23, 56), '00:00')).toBe(Date.UTC(2026, 10, 29));
    expect(utcDay(day(23, 59))).toBe('2026-11-28');
  });

  test('at the time: one event per day, id daily:<day>, the day\'s fills counted once each, PnL from the getter', () => {
    const clock = new ManualClock(day(10));
    const emitted: DaemonEvent[] = [];
    let pnl: string | undefined;
    const summary = new DailySummary({ atUtc: '23:55', clock, emit: (e) => emitted.push(e), figures: () => (pnl === undefined ? undefined : { realizedPnl: pnl }) });
    summary.observe(fill('f1'));
    summary.observe(fill('f1'));
    summary.observe(fill('f2'));
    summary.observe({ type: 'candle', id: 'c', atMs: 0, market: 'BTC_USDT', candleTime: 1 });
    summary.tick();
    expect(emitted).toEqual([]);
    clock.setMs(day(23, 55));
    pnl = '-4.2';
    summary.tick();
    summary.tick();
    expect(emitted).toEqual([{ type: 'daily_summary', id: 'daily:2026-11-28', atMs: day(23, 55), day: '2026-11-28', realizedPnl: '-4.2', fills: 2 }]);
    // The next day: yesterday's fills are not counted; the getter not answering says so.
    clock.setMs(day(23, 55) + 86_400_000);
    pnl = undefined;
    summary.tick();
    expect(emitted[1]).toMatchObject({ id: 'daily:2026-11-29', fills: 0, realizedPnl: 'unavailable' });
  });

  test('a getter that throws (trading not wired yet) gives "unavailable"; a host waking hours late skips that day', () => {
    const clock = new ManualClock(day(10));
    const emitted: DaemonEvent[] = [];
    const summary = new DailySummary({ atUtc: '11:00', clock, emit: (e) => emitted.push(e), figures: () => { throw new ReferenceError('not yet'); } });
    clock.setMs(day(11, 1));
    summary.tick();
    expect(emitted[0]).toMatchObject({ realizedPnl: 'unavailable' });
    clock.setMs(Date.UTC(2026, 10, 29, 14));
    summary.tick();
    expect(emitted).toHaveLength(1);
    clock.setMs(Date.UTC(2026, 10, 30, 11));
    summary.tick();
    expect(emitted[1]).toMatchObject({ id: 'daily:2026-11-30' });
  });
});

import {
  addCandleSteps, candleCloseCronExpression, candleCloseTime, candleSteps, isCandleClosed,
  lastClosedCandleOpenTime, nextPollAtMs, previousCandleOpenTime,
} from '../../../src/market-data/candle-clock';

const s = (y: number, mo: number, d: number, h = 0, mi = 0, sec = 0): number => Date.UTC(y, mo - 1, d, h, mi, sec) / 1000;
const ms = (y: number, mo: number, d: number, h = 0, mi = 0, sec = 0, milli = 0): number => Date.UTC(y, mo - 1, d, h, mi, sec, milli);

describe('candle close math', () => {
  test.each([
    // interval, now, next poll instant (close + 1.5 s)
    ['1m', ms(2021, 9, 29, 7, 0, 30), ms(2021, 9, 29, 7, 1, 1, 500)],
    ['1m', ms(2021, 9, 29, 7, 1, 1, 0), ms(2021, 9, 29, 7, 1, 1, 500)], // still within the delay after 07:01
    ['1m', ms(2021, 9, 29, 7, 1, 1, 500), ms(2021, 9, 29, 7, 2, 1, 500)], // exactly at the poll: the next one
    ['5m', ms(2021, 9, 29, 7, 3), ms(2021, 9, 29, 7, 5, 1, 500)],
    ['1h', ms(2021, 9, 29, 7, 59, 59), ms(2021, 9, 29, 8, 0, 1, 500)],
    ['4h', ms(2021, 9, 29, 5), ms(2021, 9, 29, 8, 0, 1, 500)],
    ['1d', ms(2021, 9, 29, 23), ms(2021, 9, 30, 0, 0, 1, 500)],
    ['3d', ms(2021, 9, 29), ms(2021, 9, 30, 0, 0, 1, 500)], // epoch-aligned: 18900 days is a multiple of 3
    ['1w', ms(2021, 9, 29, 12), ms(2021, 10, 4, 0, 0, 1, 500)], // Wednesday -> next Monday
    ['1M', ms(2021, 9, 29), ms(2021, 10, 1, 0, 0, 1, 500)],
    ['1M', ms(2021, 12, 31, 23, 59), ms(2022, 1, 1, 0, 0, 1, 500)], // year boundary
    ['1M', ms(2024, 2, 10), ms(2024, 3, 1, 0, 0, 1, 500)], // leap February
  ] as const)('%s: next poll after %d is %d', (interval, now, expected) => {
    expect(nextPollAtMs(interval, now)).toBe(expected);
  });

  test('the poll delay is configurable and validated', () => {
    expect(nextPollAtMs('1m', ms(2021, 9, 29, 7, 0, 30), 0)).toBe(ms(2021, 9, 29, 7, 1));
    expect(nextPollAtMs('1m', ms(2021, 9, 29, 7, 0, 30), 5000)).toBe(ms(2021, 9, 29, 7, 1, 5));
    expect(() => nextPollAtMs('1m', 0, 60_000)).toThrow(/poll delay/);
    expect(() => nextPollAtMs('1m', 0, -1)).toThrow(/poll delay/);
  });

  test('closed-candle detection and the newest closed candle', () => {
    const now = ms(2021, 9, 29, 7, 5, 0, 999);
    expect(isCandleClosed('1m', s(2021, 9, 29, 7, 4), now)).toBe(true);
    expect(isCandleClosed('1m', s(2021, 9, 29, 7, 5), now)).toBe(false);
    expect(isCandleClosed('1m', s(2021, 9, 29, 7, 4), ms(2021, 9, 29, 7, 4, 59, 999))).toBe(false);
    expect(lastClosedCandleOpenTime('1m', now)).toBe(s(2021, 9, 29, 7, 4));
    expect(lastClosedCandleOpenTime('1h', now)).toBe(s(2021, 9, 29, 6));
    expect(lastClosedCandleOpenTime('1w', now)).toBe(s(2021, 9, 20)); // Monday of the previous week
    expect(lastClosedCandleOpenTime('1M', now)).toBe(s(2021, 8, 1));
    expect(lastClosedCandleOpenTime('1M', ms(2022, 1, 15))).toBe(s(2021, 12, 1));
  });

  test('steps over calendar months and weeks', () => {
    expect(addCandleSteps('1M', s(2021, 11, 1), 3)).toBe(s(2022, 2, 1));
    expect(addCandleSteps('1M', s(2021, 1, 1), -2)).toBe(s(2020, 11, 1));
    expect(candleSteps('1M', s(2020, 11, 1), s(2022, 2, 1))).toBe(15);
    expect(addCandleSteps('1w', s(2021, 9, 27), 2)).toBe(s(2021, 10, 11));
    expect(candleSteps('1m', s(2021, 9, 29, 7), s(2021, 9, 29, 8, 59))).toBe(119);
    expect(previousCandleOpenTime('1M', s(2021, 3, 1))).toBe(s(2021, 2, 1));
    expect(candleCloseTime('1M', s(2021, 2, 1))).toBe(s(2021, 3, 1));
  });

  test('cron expressions align to closes (UTC, seconds field = delay rounded up)', () => {
    expect(candleCloseCronExpression('1m')).toEqual({ expression: '2 * * * * *', exact: true });
    expect(candleCloseCronExpression('15m', 1000).expression).toBe('1 */15 * * * *');
    expect(candleCloseCronExpression('1h').expression).toBe('2 0 * * * *');
    expect(candleCloseCronExpression('6h').expression).toBe('2 0 */6 * * *');
    expect(candleCloseCronExpression('1d').expression).toBe('2 0 0 * * *');
    expect(candleCloseCronExpression('3d')).toEqual({ expression: '2 0 0 * * *', exact: false });
    expect(candleCloseCronExpression('1w').expression).toBe('2 0 0 * * 1');
    expect(candleCloseCronExpression('1M').expression).toBe('2 0 0 1 * *');
  });
});

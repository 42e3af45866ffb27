import { Decimal, parseDecimal, stepForPrecision } from '../../../src/domain/decimal';
import { InvalidDecimalError } from '../../../src/domain/errors';
import { candleOpenTime, nextCandleOpenTime } from '../../../src/domain/candle';

describe('decimal parsing', () => {
  test('plain strings keep their exact value; numbers are accepted', () => {
    expect(parseDecimal('47295.0', 'price').toString()).toBe('47295');
    expect(parseDecimal('0.1', 'a').plus(parseDecimal('0.2', 'b')).toString()).toBe('0.3');
    expect(parseDecimal(0.1, 'a').toString()).toBe('0.1');
    expect(new Decimal('0.00000001').toString()).toBe('0.00000001');
  });

  test.each([['NaN'], ['1e5'], [''], ['abc'], [Number.NaN], [Number.POSITIVE_INFINITY], [null], [undefined], ['-1']])(
    'rejects %p with a clear error naming the field',
    (value) => {
      expect(() => parseDecimal(value, 'price')).toThrow(InvalidDecimalError);
      expect(() => parseDecimal(value, 'price')).toThrow(/^price: /);
    },
  );

  test('precision steps', () => {
    expect(stepForPrecision(2).toString()).toBe('0.01');
    expect(stepForPrecision(0).toString()).toBe('1');
  });
});

describe('candle times', () => {
  test('open times and next open times', () => {
    expect(candleOpenTime('1m', 1_631_917_399)).toBe(1_631_917_380);
    expect(candleOpenTime('1h', 1_631_917_399)).toBe(1_631_916_000);
    // 2021-09-20 is a Monday
    expect(candleOpenTime('1w', Date.UTC(2021, 8, 22, 12) / 1000)).toBe(Date.UTC(2021, 8, 20) / 1000);
    expect(candleOpenTime('1M', Date.UTC(2021, 8, 22) / 1000)).toBe(Date.UTC(2021, 8, 1) / 1000);
    expect(nextCandleOpenTime('1M', Date.UTC(2021, 11, 1) / 1000)).toBe(Date.UTC(2022, 0, 1) / 1000);
    expect(nextCandleOpenTime('4h', 0)).toBe(14_400);
  });
});

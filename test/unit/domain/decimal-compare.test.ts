import { Decimal } from '../../../src/domain/decimal';
import { compareDecimals, decimalAtLeast, decimalAtMost } from '../../../src/domain/decimal-compare';

describe('compareDecimals: the same answer as decimal.js cmp, without allocating', () => {
  const values = [
    '0', '-0', '1', '-1', '0.1', '0.10000001', '9999999', '10000000', '10000000.0000001', '-10000000', '45123.45', '45123.46',
    '45123.4500001', '1e-20', '-1e-20', '1e30', '123456789012345678901234567890', '0.00000001', 'Infinity', '-Infinity', 'NaN',
  ].map((v) => new Decimal(v));

  test('every pair of a mixed set', () => {
    for (const a of values) {
      for (const b of values) {
        const expected = a.comparedTo(b);
        const got = compareDecimals(a, b);
        if (Number.isNaN(expected)) expect(got).toBeNaN();
        else expect([a.toString(), b.toString(), got]).toEqual([a.toString(), b.toString(), expected]);
      }
    }
  });

  test('values built by arithmetic (trailing zero words stripped) and random prices', () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const a = new Decimal((rand() * 100000).toFixed(Math.floor(rand() * 9))).times(rand() < 0.5 ? 1 : -1);
      const b = rand() < 0.2 ? a.plus('0.00000001').minus('0.00000001') : new Decimal((rand() * 100000).toFixed(2));
      expect(compareDecimals(a, b)).toBe(a.comparedTo(b));
      expect(decimalAtMost(a, b)).toBe(a.lessThanOrEqualTo(b));
      expect(decimalAtLeast(a, b)).toBe(a.greaterThanOrEqualTo(b));
    }
  });
});

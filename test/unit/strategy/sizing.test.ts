import DecimalJs from 'decimal.js';
import { Decimal } from '../../../src/domain/decimal';
import type { MarketInfo } from '../../../src/domain/market';
import { checkSize } from '../../../src/domain/rounding';
import { sizeForNotional, sizeForRisk, type SizeResult } from '../../../src/strategy/strategy';

const d = (v: string): Decimal => new Decimal(v);

/** BTC_USDT as the simulator describes it: amounts to 6 decimals, minAmount 0.0001, minTotal 5.05, fees 0.1 %. */
const BTC: MarketInfo = {
  name: 'BTC_USDT',
  stock: 'BTC',
  money: 'USDT',
  stockPrec: 6,
  moneyPrec: 2,
  feePrec: 6,
  minAmount: d('0.0001'),
  minTotal: d('5.05'),
  maxTotal: d('0'),
  makerFee: d('0.001'),
  takerFee: d('0.001'),
  tradesEnabled: true,
  isCollateral: true,
  type: 'spot',
};
const NO_FEE = d('0');

function ok(r: SizeResult): { amount: string; total: string; limitedBy: string } {
  if (!r.ok) throw new Error(`expected a size, got ${r.rule}: ${r.reason}`);
  return { amount: r.amount.toString(), total: r.total.toString(), limitedBy: r.limitedBy };
}

describe('sizeForRisk', () => {
  test('the loss from entry to stop is at most the risk, the amount rounded DOWN to stockPrec', () => {
    // 100 / (100 - 97) = 33.333...: rounds down, never to nearest.
    const r = sizeForRisk({ entry: d('100'), stop: d('97'), risk: d('100'), marketInfo: BTC, feeRate: NO_FEE });
    expect(ok(r)).toEqual({ amount: '33.333333', total: '3333.3333', limitedBy: 'risk' });
    // 0.9999999... would round to 1 at nearest: down stays below.
    expect(ok(sizeForRisk({ entry: d('10'), stop: d('9'), risk: d('0.9999999'), marketInfo: BTC, feeRate: NO_FEE })).amount).toBe('0.999999');
  });

  test('an exact quotient is kept as is', () => {
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('98'), risk: d('1'), marketInfo: BTC, feeRate: NO_FEE })).amount).toBe('0.5');
  });

  test("fees at both ends come out of the risk; by default the market's larger fee", () => {
    // Docs example: risk 100 USDT, stop 2 % below a 60000 entry, fee 0.1 % of each trade:
    // per BTC 1200 + 0.001 x (60000 + 58800) = 1318.8; 100 / 1318.8 = 0.07582651...
    const r = ok(sizeForRisk({ entry: d('60000'), stop: d('58800'), risk: d('100'), marketInfo: BTC }));
    expect(r).toEqual({ amount: '0.075826', total: '4549.56', limitedBy: 'risk' });
    const loss = d(r.amount).times(d('1200')).plus(d(r.amount).times('60000').times('0.001')).plus(d(r.amount).times('58800').times('0.001'));
    expect(loss.lessThanOrEqualTo(100)).toBe(true);
    expect(loss.plus(d('1318.8').times('0.000001')).greaterThan(100)).toBe(true); // one more step would exceed it
    // Maker and taker differ: the larger one is used.
    const mixed = { ...BTC, makerFee: d('0'), takerFee: d('0.002') };
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('98'), risk: d('10'), marketInfo: mixed })).amount)
      .toBe(ok(sizeForRisk({ entry: d('100'), stop: d('98'), risk: d('10'), marketInfo: BTC, feeRate: d('0.002') })).amount);
    // An explicit fee rate wins over the market's; zero leaves fees out.
    expect(ok(sizeForRisk({ entry: d('60000'), stop: d('58800'), risk: d('100'), marketInfo: BTC, feeRate: NO_FEE })).amount).toBe('0.083333');
    // 10 / (2 + 0.01 x 198) = 10 / 3.98 = 2.51256...
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('98'), risk: d('10'), marketInfo: BTC, feeRate: d('0.01') })).amount).toBe('2.512562');
  });

  test('a stop above the entry sizes a short the same way', () => {
    const long = ok(sizeForRisk({ entry: d('100'), stop: d('98'), risk: d('10'), marketInfo: BTC }));
    const short = ok(sizeForRisk({ entry: d('100'), stop: d('102'), risk: d('10'), marketInfo: BTC }));
    // long: 10 / (2 + 0.001 x 198) = 4.549590...; short: 10 / (2 + 0.001 x 202) = 4.541326...
    expect(long.amount).toBe('4.54959');
    expect(short.amount).toBe('4.541326');
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('103'), risk: d('100'), marketInfo: BTC, feeRate: NO_FEE })).amount).toBe('33.333333');
  });

  test('the precision is the market\'s: stockPrec 0 gives whole units', () => {
    const whole = { ...BTC, stockPrec: 0, minAmount: d('1'), minTotal: d('1') };
    expect(ok(sizeForRisk({ entry: d('10'), stop: d('9'), risk: d('7.9'), marketInfo: whole, feeRate: NO_FEE })).amount).toBe('7');
  });

  test('below the minimum amount: a "too small" result, never bumped up', () => {
    // 0.1 / 1200 = 0.0000833 BTC < minAmount 0.0001
    const r = sizeForRisk({ entry: d('60000'), stop: d('58800'), risk: d('0.1'), marketInfo: BTC, feeRate: NO_FEE });
    expect(r).toMatchObject({ ok: false, rule: 'min_amount' });
    if (r.ok) throw new Error('unreachable');
    expect(r.amount.toString()).toBe('0.000083');
    expect(r.reason).toBe('risk 0.1 USDT over a stop 1200 away (no fees) sizes 0.000083 BTC: amount 0.000083 is below the minimum 0.0001 of BTC_USDT');
  });

  test('an amount that rounds to zero is "too small" as well', () => {
    const r = sizeForRisk({ entry: d('60000'), stop: d('58800'), risk: d('0.0001'), marketInfo: BTC });
    expect(r).toMatchObject({ ok: false, rule: 'min_amount' });
    expect(r.amount.isZero()).toBe(true);
    expect(sizeForRisk({ entry: d('100'), stop: d('99'), risk: d('0'), marketInfo: BTC })).toMatchObject({ ok: false, rule: 'min_amount' });
  });

  test('below the minimum total: a "too small" result naming min_total', () => {
    // 0.04 / 0.01 = 4 units of a 1.00 stock: amount fine, total 4 < 5.05.
    const r = sizeForRisk({ entry: d('1'), stop: d('0.99'), risk: d('0.04'), marketInfo: BTC, feeRate: NO_FEE });
    expect(r).toMatchObject({ ok: false, rule: 'min_total' });
    if (r.ok) throw new Error('unreachable');
    expect(r.amount.toString()).toBe('4');
    expect(r.reason).toMatch(/total 4 is below the minimum 5\.05 of BTC_USDT$/);
    // Exactly at the minimums passes.
    expect(ok(sizeForRisk({ entry: d('1'), stop: d('0.99'), risk: d('0.0505'), marketInfo: BTC, feeRate: NO_FEE }))).toEqual({ amount: '5.05', total: '5.05', limitedBy: 'risk' });
  });

  test('maxMoney caps the entry\'s money, fees included', () => {
    // Risk alone would allow about 33 x 100 = 3300 USDT; 1000 USDT with 0.1 % fee buys 1000 / 100.1 = 9.990009990...
    const r = ok(sizeForRisk({ entry: d('100'), stop: d('97'), risk: d('100'), marketInfo: BTC, maxMoney: d('1000') }));
    expect(r).toEqual({ amount: '9.990009', total: '999.0009', limitedBy: 'money' });
    expect(d(r.amount).times('100').times('1.001').lessThanOrEqualTo(1000)).toBe(true);
    // A cap above the risk size changes nothing.
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('97'), risk: d('100'), marketInfo: BTC, feeRate: NO_FEE, maxMoney: d('1000000') })).limitedBy).toBe('risk');
    // A cap below the minimum total is "too small", not the risk size.
    expect(sizeForRisk({ entry: d('100'), stop: d('97'), risk: d('100'), marketInfo: BTC, maxMoney: d('5') })).toMatchObject({ ok: false, rule: 'min_total' });
  });

  test("the market's maximum total caps the size (zero means no limit)", () => {
    const capped = { ...BTC, maxTotal: d('1000') };
    expect(ok(sizeForRisk({ entry: d('100'), stop: d('97'), risk: d('100'), marketInfo: capped, feeRate: NO_FEE }))).toEqual({ amount: '10', total: '1000', limitedBy: 'max_total' });
    expect(ok(sizeForRisk({ entry: d('300'), stop: d('297'), risk: d('100'), marketInfo: capped, feeRate: NO_FEE }))).toEqual({ amount: '3.333333', total: '999.9999', limitedBy: 'max_total' });
  });

  test('every size it accepts passes the executor\'s size check at the entry price', () => {
    const markets = [BTC, { ...BTC, stockPrec: 2, minAmount: d('0.01'), minTotal: d('10'), maxTotal: d('5000') }, { ...BTC, stockPrec: 8, minAmount: d('0.00000001') }];
    for (const marketInfo of markets) {
      for (const [entry, stop, risk] of [['100', '99.7', '3'], ['0.0123', '0.0119', '50'], ['65432.1', '66000', '250'], ['7', '6.3', '0.5']] as const) {
        const r = sizeForRisk({ entry: d(entry), stop: d(stop), risk: d(risk), marketInfo });
        if (r.ok) expect(checkSize(r.amount, [d(entry)], marketInfo)).toEqual({ ok: true });
        else expect(checkSize(r.amount, [d(entry)], marketInfo)).toMatchObject({ ok: false, rule: r.rule });
      }
    }
  });

  test('a Decimal of another decimal.js copy is accepted and the result is the project\'s Decimal', () => {
    const r = sizeForRisk({ entry: new DecimalJs('100') as unknown as Decimal, stop: d('98'), risk: d('1'), marketInfo: BTC, feeRate: NO_FEE });
    expect(r.amount).toBeInstanceOf(Decimal);
    expect(r.amount.toString()).toBe('0.5');
  });

  describe('bad input throws an Error naming the field', () => {
    const base = { entry: d('100'), stop: d('98'), risk: d('10'), marketInfo: BTC };
    test.each([
      ['entry == stop', { stop: d('100') }, /sizeForRisk: stop must differ from entry \(both 100\)/],
      ['a negative risk', { risk: d('-1') }, /sizeForRisk: risk must be zero or more, got -1/],
      ['a zero entry', { entry: d('0') }, /sizeForRisk: entry must be positive, got 0/],
      ['a negative stop', { stop: d('-5') }, /sizeForRisk: stop must be positive, got -5/],
      ['a float risk', { risk: 10 }, /sizeForRisk: risk must be a Decimal \(not a number or string\), got a number/],
      ['a string entry', { entry: '100' }, /sizeForRisk: entry must be a Decimal \(not a number or string\), got a string/],
      ['a missing stop', { stop: undefined }, /sizeForRisk: stop must be a Decimal .*got nothing/],
      ['an infinite entry', { entry: d('Infinity') }, /sizeForRisk: entry must be finite/],
      ['a missing marketInfo', { marketInfo: undefined }, /sizeForRisk: marketInfo is required/],
      ['a marketInfo without stockPrec', { marketInfo: { ...BTC, stockPrec: undefined } }, /sizeForRisk: marketInfo\.stockPrec must be a non-negative integer/],
      ['a negative fee', { feeRate: d('-0.001') }, /sizeForRisk: feeRate must be zero or more/],
      ['a fee in percent', { feeRate: d('1') }, /sizeForRisk: feeRate is a ratio .* must be below 1, got 1/],
      ['a negative maxMoney', { maxMoney: d('-1') }, /sizeForRisk: maxMoney must be zero or more/],
    ])('%s', (_what, change, message) => {
      expect(() => sizeForRisk({ ...base, ...change } as unknown as Parameters<typeof sizeForRisk>[0])).toThrow(message);
    });
    test('no arguments at all', () => {
      expect(() => sizeForRisk(undefined as unknown as Parameters<typeof sizeForRisk>[0])).toThrow(/sizeForRisk: expected an object/);
    });
  });
});

describe('sizeForNotional', () => {
  test('spends at most the money, fees included by default, rounded DOWN', () => {
    // 100 / (60000 x 1.001) = 0.0016650016...
    expect(ok(sizeForNotional({ money: d('100'), price: d('60000'), marketInfo: BTC }))).toEqual({ amount: '0.001665', total: '99.9', limitedBy: 'money' });
    // Without fees: 100 / 60000 = 0.0016666...
    expect(ok(sizeForNotional({ money: d('100'), price: d('60000'), marketInfo: BTC, feeRate: NO_FEE }))).toEqual({ amount: '0.001666', total: '99.96', limitedBy: 'money' });
    expect(ok(sizeForNotional({ money: d('100'), price: d('50'), marketInfo: BTC, feeRate: NO_FEE }))).toEqual({ amount: '2', total: '100', limitedBy: 'money' });
  });

  test('too small for the minimum total or amount: a "too small" result', () => {
    const r = sizeForNotional({ money: d('5'), price: d('60000'), marketInfo: BTC, feeRate: NO_FEE });
    expect(r).toMatchObject({ ok: false, rule: 'min_amount' }); // 0.000083 BTC
    const t = sizeForNotional({ money: d('5'), price: d('1'), marketInfo: BTC, feeRate: NO_FEE });
    expect(t).toMatchObject({ ok: false, rule: 'min_total' });
    if (t.ok) throw new Error('unreachable');
    expect(t.reason).toBe('5 USDT at 1 (no fees) sizes 5 BTC: total 5 is below the minimum 5.05 of BTC_USDT');
  });

  test("capped by the market's maximum total", () => {
    expect(ok(sizeForNotional({ money: d('10000'), price: d('100'), marketInfo: { ...BTC, maxTotal: d('2500') } }))).toEqual({ amount: '25', total: '2500', limitedBy: 'max_total' });
  });

  test.each([
    ['a negative money', { money: d('-1') }, /sizeForNotional: money must be zero or more, got -1/],
    ['a zero price', { price: d('0') }, /sizeForNotional: price must be positive, got 0/],
    ['a float money', { money: 100 }, /sizeForNotional: money must be a Decimal \(not a number or string\), got a number/],
    ['a missing marketInfo', { marketInfo: undefined }, /sizeForNotional: marketInfo is required/],
  ])('bad input throws naming the field: %s', (_what, change, message) => {
    const args = { money: d('100'), price: d('100'), marketInfo: BTC, ...change };
    expect(() => sizeForNotional(args as unknown as Parameters<typeof sizeForNotional>[0])).toThrow(message);
  });
});

import { Decimal } from '../../../src/domain/decimal';
import type { OcoIntent, StopLimitIntent } from '../../../src/domain/intent';
import { checkBalance, checkPriceBand, type RiskContext, type RiskDenial } from '../../../src/risk/risk-checks';

/**
 * The checks compare with precomputed bounds and allocation-free compares; these pin that they give
 * the same answers (and messages) as the plain decimal.js formulas they replaced, edges included.
 */
const D = (v: string | number) => new Decimal(v);
const ctx = (lastPrice: Decimal | undefined, usdt = '1000'): RiskContext => ({
  strategy: 's1', lastPrice, openOrders: [], balances: { USDT: { available: D(usdt), freeze: D(0) }, BTC: { available: D('0.01'), freeze: D(0) } },
});
const buy = (price: string, activation = price): StopLimitIntent => ({
  kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: D('0.01'), price: D(price), activationPrice: D(activation),
});

/** The former check: |p / last - 1| > band for price, activation, stop-limit, in that order. */
function reference(prices: [string, Decimal][], last: Decimal, band: Decimal): string | undefined {
  for (const [field, price] of prices) {
    const off = price.dividedBy(last).minus(1).abs();
    if (off.greaterThan(band)) return `${field} ${price} is ${off.times(100).toDecimalPlaces(2)} % from the last price ${last} (band ${band.times(100)} %)`;
  }
  return undefined;
}

describe('price band with precomputed bounds', () => {
  test('same verdicts and messages as |p / last - 1| <= band, on and around the edges', () => {
    for (const band of ['0.05', '0.001', '0', '0.3333']) {
      for (const last of ['50000', '43210.57', '0.00012345', '1']) {
        const l = D(last);
        const b = D(band);
        const edges = [l.times(D(1).plus(b)), l.times(D(1).minus(b)), l];
        const prices = edges.flatMap((e) => [e, e.plus('0.00000001'), e.minus('0.00000001'), e.times('1.0000000001'), e.times('0.9999999999')]);
        for (const p of prices) {
          const intent = buy(p.toString(), last);
          const got = checkPriceBand(intent, ctx(l), { priceBand: b }) as RiskDenial | undefined;
          expect(got?.message).toBe(reference([['price', intent.price], ['activationPrice', intent.activationPrice]], l, b));
        }
      }
    }
  });
  test('OCO stop-limit price is checked last; a non-positive last price denies', () => {
    const oco: OcoIntent = { kind: 'oco', market: 'BTC_USDT', side: 'sell', amount: D('0.01'), price: D('51000'), activationPrice: D('49500'), stopLimitPrice: D('40000') };
    expect(checkPriceBand(oco, ctx(D(50000)), { priceBand: D('0.05') })?.message)
      .toBe(reference([['price', oco.price], ['activationPrice', oco.activationPrice], ['stopLimitPrice', oco.stopLimitPrice]], D(50000), D('0.05')));
    expect(checkPriceBand(oco, ctx(D(0)), { priceBand: D('0.05') })).toMatchObject({ rule: 'price_band' });
    expect(checkPriceBand(oco, ctx(D(-1)), { priceBand: D('0.05') })).toMatchObject({ rule: 'price_band' });
  });
});

describe('balance check with a cached fee factor', () => {
  test('need = notional x (1 + margin), the message as before; margins alternate', () => {
    const intent = buy('50100', '50000');
    for (const margin of [D('0.002'), D('0.01'), D('0.002'), D(0)]) {
      const need = intent.amount.times(intent.price).times(D(1).plus(margin));
      const exact = ctx(D(50000), need.toString());
      expect(checkBalance(intent, exact, { feeMargin: margin })).toBeUndefined();
      const short = ctx(D(50000), need.minus('0.00000001').toString());
      expect((checkBalance(intent, short, { feeMargin: margin }) as RiskDenial).message)
        .toBe(`buy needs ${need} USDT (fees included), available ${need.minus('0.00000001')}`);
    }
  });
});

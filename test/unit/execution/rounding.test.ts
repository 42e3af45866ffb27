import { Decimal } from '../../../src/domain/decimal';
import type { OrderReport } from '../../../src/domain/order';
import { exchangeClientOrderId, ocoLegIds, siblingLegId } from '../../../src/execution/journal/oco-ids';
import { prepareOrder } from '../../../src/execution/orders/prepare-order';
import { outcomeOfReport } from '../../../src/execution/journal/report-event';
import { checkSize, roundActivationPrice, roundAmount, roundLimitPrice } from '../../../src/domain/rounding';
import { simMarketInfo } from '../../../src/simulator/sim-markets';

const market = simMarketInfo('BTC_USDT'); // stockPrec 6, moneyPrec 2, minAmount 0.0001, minTotal 5.05
const d = (v: string): Decimal => new Decimal(v);

describe('rounding to the market precision', () => {
  test('amounts always round down', () => {
    expect(roundAmount(d('0.1234569'), market).toString()).toBe('0.123456');
  });
  test('limit prices are never worse than asked: buy down, sell up', () => {
    expect(roundLimitPrice(d('100.019'), 'buy', market).toString()).toBe('100.01');
    expect(roundLimitPrice(d('100.011'), 'sell', market).toString()).toBe('100.02');
  });
  test('triggers fire no later than asked: buy stop down, sell stop up', () => {
    expect(roundActivationPrice(d('105.009'), 'buy', market).toString()).toBe('105');
    expect(roundActivationPrice(d('94.991'), 'sell', market).toString()).toBe('95');
  });
  test('size limits on the rounded values', () => {
    expect(checkSize(d('0.00009'), [d('100')], market)).toMatchObject({ ok: false, rule: 'min_amount' });
    expect(checkSize(d('0.05'), [d('100')], market)).toMatchObject({ ok: false, rule: 'min_total' });
    expect(checkSize(d('0.1'), [d('100'), d('40')], market)).toMatchObject({ ok: false, rule: 'min_total' });
    expect(checkSize(d('0.1'), [d('100')], { ...market, maxTotal: d('5') })).toMatchObject({ ok: false, rule: 'max_total' });
    expect(checkSize(d('0.1'), [d('100')], market)).toEqual({ ok: true });
  });
});

describe('prepareOrder', () => {
  const stamped = { strategy: 'alpha', interval: '1m' as const, candleTime: 1_700_000_040 };
  test('an OCO becomes two journal records; the stop-loss id is the one sent', () => {
    const prep = prepareOrder({ ...stamped, intent: { kind: 'oco', market: 'BTC_USDT', side: 'sell', amount: d('0.2'), price: d('110'), activationPrice: d('95'), stopLimitPrice: d('94.5') } }, market, undefined);
    if (!prep.ok) throw new Error(prep.reason);
    expect(prep.order.records.map((r) => r.kind)).toEqual(['oco_sl', 'oco_tp']);
    expect(prep.order.sentClientOrderId).toBe(prep.order.records[0]!.clientOrderId);
    expect(prep.order.records[0]!.clientOrderId).toBe(ocoLegIds({ strategy: 'alpha', market: 'BTC_USDT', candleTime: stamped.candleTime }).sl);
  });
  test('balance check: a buy needs total plus the larger fee', () => {
    const intent = { kind: 'stop_limit' as const, market: 'BTC_USDT', side: 'buy' as const, amount: d('1'), price: d('100'), activationPrice: d('99') };
    const short = { available: () => d('100.09') };
    const enough = { available: () => d('100.1') };
    expect(prepareOrder({ ...stamped, intent }, market, short)).toMatchObject({ ok: false, rule: 'balance' });
    expect(prepareOrder({ ...stamped, intent }, market, enough)).toMatchObject({ ok: true });
  });
});

describe('OCO ids', () => {
  test('each leg finds the id sent and its sibling', () => {
    const { sl, tp } = ocoLegIds({ strategy: 'alpha', market: 'BTC_USDT', candleTime: 60 });
    expect(exchangeClientOrderId({ clientOrderId: tp, kind: 'oco_tp' })).toBe(sl);
    expect(exchangeClientOrderId({ clientOrderId: sl, kind: 'oco_sl' })).toBe(sl);
    expect(siblingLegId({ clientOrderId: sl, kind: 'oco_sl' })).toBe(tp);
    expect(siblingLegId({ clientOrderId: tp, kind: 'oco_tp' })).toBe(sl);
  });
});

describe('exchange report -> journal event', () => {
  const base: OrderReport = {
    orderId: 1, clientOrderId: 'x', market: 'BTC_USDT', side: 'buy', type: 'stop limit', timestamp: 1, amount: d('1'), left: d('1'),
    dealStock: d('0'), dealMoney: d('0'), dealFee: d('0'), price: d('100'), activationPrice: d('99'), activationCondition: 'gte', activated: false, status: undefined,
  };
  test.each([
    [{}, 'accept'],
    [{ status: 'FILLED' }, 'accept'], // FILLED on a fresh resting order (docs placeholder): nothing traded
    [{ activated: true }, 'trigger'],
    [{ dealStock: d('0.4'), left: d('0.6') }, 'fill_partially'],
    [{ dealStock: d('1'), left: d('0'), status: 'FILLED' }, 'fill'],
    [{ status: 'CANCELED' }, 'cancel'],
    [{ status: 'AUTO_CANCELED_REDUCE_ONLY', dealStock: d('0.2'), left: d('0.8') }, 'cancel'],
    // A history row (no `left` on the venue: parsed as 0) of an order partly filled, then cancelled.
    [{ status: 'CANCELED', dealStock: d('0.3'), left: d('0') }, 'cancel'],
    [{ status: 'CANCELED', dealStock: d('1'), left: d('0') }, 'fill'], // the whole amount traded
  ] as const)('%o -> %s', (over, event) => {
    expect(outcomeOfReport({ ...base, ...over }).event).toBe(event);
  });

  test('the deal amounts go to the journal with the event', () => {
    const partial = outcomeOfReport({ ...base, status: 'CANCELED', dealStock: d('0.3'), dealMoney: d('29.7'), dealFee: d('0.0297'), left: d('0') });
    expect(partial).toEqual({ event: 'cancel', filledAmount: '0.3', filledMoney: '29.7', fee: '0.0297' });
  });
});

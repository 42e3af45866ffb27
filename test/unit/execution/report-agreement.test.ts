import { Decimal } from '../../../src/domain/decimal';
import type { OrderReport } from '../../../src/domain/order';
import { describeDisagreement, reportDisagreement, type AgreementField } from '../../../src/execution/reconciliation/report-agreement';
import { outcomeOfReport } from '../../../src/execution/journal/report-event';
import { PUSH_MISMATCH_FIELDS } from '../../../src/metrics/definitions';
import type { OrderRecord } from '../../../src/store/order-store-port';

const record = (over: Partial<OrderRecord> = {}): OrderRecord => ({
  clientOrderId: 'tb-a', strategy: 's', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit', amount: '1', price: '105.5',
  activationPrice: '105', stopLimitPrice: undefined, candleTime: 0, status: 'submitted', orderId: undefined, ocoId: undefined,
  filledAmount: '0', filledMoney: '0', fee: '0', history: [], createdAtMs: 0, updatedAtMs: 0, reason: undefined, fencingToken: undefined, ...over,
});
const d = (v: string): Decimal => new Decimal(v);
const report = (over: Partial<OrderReport> = {}): OrderReport => ({
  orderId: 7, clientOrderId: 'tb-a', market: 'BTC_USDT', side: 'buy', type: 'stop limit', timestamp: 0,
  amount: d('1'), left: d('1'), dealStock: d('0'), dealMoney: d('0'), dealFee: d('0'),
  price: d('105.5'), activationPrice: d('105'), activationCondition: 'gte', activated: false, status: 'OPEN', ...over,
});

describe('a venue report agrees with the journal record it claims only on every order fact', () => {
  test('agreeing: the same facts, decimals compared by value, not text', () => {
    expect(reportDisagreement(record(), report())).toBeUndefined();
    expect(reportDisagreement(record(), report({ amount: d('1.0000'), price: d('105.50'), activationPrice: d('105.0') }))).toBeUndefined();
    // A push shows no activation price: not compared then.
    expect(reportDisagreement(record(), report({ activationPrice: undefined }))).toBeUndefined();
  });

  test.each<[AgreementField, Partial<OrderReport>, string, string]>([
    ['market', { market: 'ETH_USDT' }, 'BTC_USDT', 'ETH_USDT'],
    ['side', { side: 'sell' }, 'buy', 'sell'],
    ['kind', { type: 'limit' }, 'stop_limit', 'limit'],
    ['kind', { type: 'margin stop limit' }, 'stop_limit', 'margin stop limit'],
    ['amount', { amount: d('0.0001') }, '1', '0.0001'],
    ['amount', { amount: d('1.00000001') }, '1', '1.00000001'],
    ['price', { price: d('105.4') }, '105.5', '105.4'],
    ['price', { price: undefined }, '105.5', 'none'],
    ['activationPrice', { activationPrice: d('90') }, '105', '90'],
  ])('%s differs: %j', (field, over, journaled, reported) => {
    const got = reportDisagreement(record(), report(over));
    expect(got).toEqual({ field, journaled, reported });
    expect(describeDisagreement(got!)).toBe(`${field}: journal ${journaled}, venue report ${reported}`);
  });

  test('a stop-limit record without an activation price (an adopted plain limit order) agrees with a spot limit, nothing else', () => {
    const adopted = record({ activationPrice: undefined });
    expect(reportDisagreement(adopted, report({ type: 'limit', activationPrice: undefined }))).toBeUndefined();
    expect(reportDisagreement(adopted, report({ type: 'margin limit', activationPrice: undefined }))?.field).toBe('kind');
    expect(reportDisagreement(record(), report({ type: 'limit' }))?.field).toBe('kind');
  });

  test('OCO legs: each leg by its own type and price (the stop-loss leg\'s limit is the journal\'s stopLimitPrice)', () => {
    const sl = record({ kind: 'oco_sl', side: 'sell', price: '120', activationPrice: '95', stopLimitPrice: '94' });
    const tp = record({ kind: 'oco_tp', side: 'sell', price: '120', activationPrice: '95', stopLimitPrice: '94' });
    const leg = (over: Partial<OrderReport>): OrderReport => report({ side: 'sell', ...over });
    expect(reportDisagreement(sl, leg({ type: 'margin stop limit', price: d('94'), activationPrice: d('95') }))).toBeUndefined();
    expect(reportDisagreement(tp, leg({ type: 'margin limit', price: d('120'), activationPrice: undefined }))).toBeUndefined();
    expect(reportDisagreement(sl, leg({ type: 'margin limit', price: d('120'), activationPrice: undefined }))?.field).toBe('kind');
    expect(reportDisagreement(tp, leg({ type: 'margin stop limit', price: d('94'), activationPrice: d('95') }))?.field).toBe('kind');
    expect(reportDisagreement(sl, leg({ type: 'margin stop limit', price: d('120'), activationPrice: d('95') }))).toEqual({ field: 'price', journaled: '94', reported: '120' });
  });

  test('filled is judged against the amount the journal sent, never the report\'s', () => {
    const tiny = report({ amount: d('0.0001'), left: d('0'), dealStock: d('0.0001'), dealMoney: d('0.01'), status: 'FILLED' });
    expect(outcomeOfReport(tiny).event).toBe('fill'); // the report's own reading
    expect(outcomeOfReport(tiny, d('1')).event).toBe('fill_partially'); // the journal's: 0.0001 of 1
    expect(outcomeOfReport(report({ left: d('0'), dealStock: d('1'), dealMoney: d('105'), status: 'FILLED' }), d('1')).event).toBe('fill');
  });

  test('the metric\'s field label lists every field (and the order id)', () => {
    const fields: AgreementField[] = ['market', 'side', 'kind', 'amount', 'price', 'activationPrice'];
    expect([...PUSH_MISMATCH_FIELDS].sort()).toEqual([...fields, 'orderId'].sort());
  });
});

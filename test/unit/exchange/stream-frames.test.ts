import { backoffDelayMs } from '../../../src/exchange/stream/backoff';
import { parseCandleTicks, parseDealEvent, parseLastPrice, parseOrderEvent, parseStreamFrame } from '../../../src/exchange/stream/stream-frames';

const order = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 7, market: 'BTC_USDT', type: 3, side: 2, amount: '0.1', left: '0.1', deal_stock: '0', deal_money: '0', deal_fee: '0',
  price: '105.5', ctime: 100, mtime: 100, client_order_id: 'tb-a', status: 'OPEN', ...over,
});

describe('stream frames', () => {
  test('answers, pushes and everything else', () => {
    expect(parseStreamFrame('{"id":3,"result":"pong","error":null}')).toEqual({ kind: 'answer', id: 3, result: 'pong', error: null });
    expect(parseStreamFrame('{"id":3,"result":null,"error":{"code":6,"message":"require authentication"}}')).toMatchObject({ kind: 'answer', error: { code: 6 } });
    expect(parseStreamFrame('{"id":null,"method":"deals_update","params":[1]}')).toEqual({ kind: 'push', method: 'deals_update', params: [1] });
    for (const bad of ['', 'nope', '[]', '{"id":null}', '{"id":"x","result":1,"error":null}', '{"id":null,"method":5,"params":[]}']) {
      expect(parseStreamFrame(bad).kind).toBe('invalid');
    }
    expect(parseStreamFrame(`{"id":null,"method":"x","params":[${'1,'.repeat(20_000)}1]}`).kind).toBe('invalid');
  });

  test('ordersPending_update: event 3 is filled only when nothing is left and all traded, else cancelled', () => {
    const filled = parseOrderEvent([3, order({ left: '0', deal_stock: '0.1', deal_money: '10.5' })])!;
    expect(filled.report.status).toBe('FILLED');
    expect(filled.report.side).toBe('buy');
    const cancelled = parseOrderEvent([3, order({ left: '0.05', deal_stock: '0.05' })])!;
    expect(cancelled.report.status).toBe('CANCELED');
    expect(parseOrderEvent([1, order()])).toMatchObject({ eventId: 1, isStop: true, changedSinceCreation: false });
    expect(parseOrderEvent([1, order({ mtime: 160 })])!.changedSinceCreation).toBe(true);
    expect(parseOrderEvent([1, order({ client_order_id: '' })])!.report.clientOrderId).toBeUndefined();
  });

  test('ordersPending_update with a wrong shape is refused, never half-read', () => {
    expect(parseOrderEvent([4, order()])).toBeUndefined();
    expect(parseOrderEvent([1, order({ amount: '1e5' })])).toBeUndefined();
    expect(parseOrderEvent([1, order({ amount: -1 })])).toBeUndefined();
    expect(parseOrderEvent([1, order({ market: 'btc' })])).toBeUndefined();
    expect(parseOrderEvent([1, { ...order(), id: undefined }])).toBeUndefined();
    expect(parseOrderEvent([1])).toBeUndefined();
    expect(parseOrderEvent([1, order({ amount: '9'.repeat(100) })])).toBeUndefined();
  });

  test('deals, candles, last price', () => {
    expect(parseDealEvent([5, 1.5, 'BTC_USDT', 7, '105', '0.1', '0.01', 'tb-a', 2, 2, 'USDT'])).toMatchObject({ dealId: 5, orderId: 7, clientOrderId: 'tb-a' });
    expect(parseDealEvent([5, 1.5, 'BTC_USDT', 7, '105', 'x', '0.01', 'tb-a', 2, 2, 'USDT'])).toBeUndefined();
    expect(parseCandleTicks([[60, '1', '2', '3', '0.5', '10', '20', 'BTC_USDT']])).toEqual([{ time: 60, market: 'BTC_USDT' }]);
    expect(parseCandleTicks([])).toBeUndefined();
    expect(parseCandleTicks([[60, '1', '2', '3', '0.5', '10', '20']])).toBeUndefined();
    expect(parseLastPrice(['BTC_USDT', '101.5'])!.price.toString()).toBe('101.5');
    expect(parseLastPrice(['BTC_USDT', '0'])).toBeUndefined();
    expect(parseLastPrice(['BTC_USDT', 101.5])).toBeUndefined();
  });
});

describe('reconnect backoff', () => {
  test('grows from 1 s to 30 s with jitter, never below half the base', () => {
    expect(backoffDelayMs(0, undefined, () => 0)).toBe(500);
    expect(backoffDelayMs(0, undefined, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, undefined, () => 1)).toBe(8000);
    expect(backoffDelayMs(10, undefined, () => 1)).toBe(30_000);
    expect(backoffDelayMs(1000, undefined, () => 1)).toBe(30_000);
    for (let a = 0; a < 20; a++) {
      const d = backoffDelayMs(a);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(30_000);
    }
  });
});

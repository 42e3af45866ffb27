import { PnlTracker } from '../../../src/app/pnl-tracker';
import { Decimal } from '../../../src/domain/decimal';
import type { OrderRecord } from '../../../src/store/order-store-port';

function record(id: string, side: 'buy' | 'sell', price: string, filled: string): OrderRecord {
  return {
    clientOrderId: id, strategy: 's', market: 'BTC_USDT', side, kind: 'stop_limit', amount: '1', price, activationPrice: price,
    stopLimitPrice: undefined, candleTime: 0, status: 'filled', orderId: 1, ocoId: undefined, filledAmount: filled, filledMoney: '0', fee: '0',
    createdAtMs: 0, updatedAtMs: 0, reason: undefined, fencingToken: undefined, history: [],
  };
}

test('average cost: a sell realises (price - average cost) x amount; repeated reports count once', () => {
  const realized: string[] = [];
  const t = new PnlTracker(new Decimal(0), (amount) => realized.push(amount.toString()));
  t.onFill(record('b1', 'buy', '100', '1'));
  t.onFill(record('b2', 'buy', '200', '1'));
  t.onFill(record('b2', 'buy', '200', '1')); // same cumulative fill again
  t.onFill(record('s1', 'sell', '120', '0.5'));
  t.onFill(record('s1', 'sell', '120', '1')); // partial then full: only the increase counts
  expect(realized).toEqual(['-15', '-15']);
});

test('fees reduce the realised PnL', () => {
  const realized: string[] = [];
  const t = new PnlTracker(new Decimal('0.01'), (amount) => realized.push(amount.toString()));
  t.onFill(record('b', 'buy', '100', '1'));
  t.onFill(record('s', 'sell', '110', '1'));
  expect(realized).toEqual(['7.9']); // 110 - 101 (cost incl. buy fee) - 1.1 (sell fee)
});

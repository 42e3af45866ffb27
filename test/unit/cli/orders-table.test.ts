import { formatTable } from '../../../src/cli/orders-command';
import type { OrderRecord } from '../../../src/store/order-store-port';

function record(over: Partial<OrderRecord>): OrderRecord {
  return {
    clientOrderId: 'sma-x', strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit', amount: '0.5', price: '100',
    activationPrice: '99', stopLimitPrice: undefined, candleTime: 0, status: 'open', orderId: 7, ocoId: undefined, filledAmount: '0',
    filledMoney: '0', fee: '0', createdAtMs: 0, updatedAtMs: 0, reason: undefined, fencingToken: undefined, history: [], ...over,
  };
}

test('`tradebot orders` shows partial fills: status, filled amount, average price and fee', () => {
  const table = formatTable([
    record({ clientOrderId: 'a', status: 'partially_filled', filledAmount: '0.2', filledMoney: '19.9', fee: '0.0199' }),
    record({ clientOrderId: 'b', status: 'canceled', filledAmount: '0.3', filledMoney: '30', fee: '0.03' }),
    record({ clientOrderId: 'c', status: 'filled', filledAmount: '0.5', filledMoney: '49.75', fee: '0.04975' }),
    record({ clientOrderId: 'd', status: 'canceled' }),
  ]);
  const rows = table.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
  expect(rows[0]).toEqual(expect.arrayContaining(['status', 'amount', 'filled', 'avg price', 'fee']));
  const col = (name: string) => rows[0]!.indexOf(name);
  const cells = (i: number) => [rows[i]![col('status')], rows[i]![col('filled')], rows[i]![col('avg price')]];
  expect(cells(1)).toEqual(['partially_filled', '0.2', '99.5']);
  expect(cells(2)).toEqual(['canceled, partly filled', '0.3', '100']);
  expect(cells(3)).toEqual(['filled', '0.5', '99.5']);
  expect(rows[4]![col('status')]).toBe('canceled');
});

test('`tradebot orders` shows creation in market time; a record no run maps shows its wall time, marked', () => {
  const table = formatTable([
    { ...record({ clientOrderId: 'a', createdAtMs: Date.UTC(2026, 10, 28, 2, 0, 0) }), createdMarketMs: Date.UTC(2024, 0, 5, 13, 7, 30) },
    record({ clientOrderId: 'b', createdAtMs: Date.UTC(2026, 10, 28, 2, 0, 1) }),
  ]);
  const rows = table.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
  expect(rows[0]![0]).toBe('created (market, UTC)');
  expect(rows[1]![0]).toBe('2024-01-05 13:07:30');
  expect(rows[2]![0]).toBe('2026-11-28 02:00:01 (wall)');
});

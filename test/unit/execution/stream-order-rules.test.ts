import { parseOrderEvent } from '../../../src/exchange/stream/stream-frames';
import { decideOrderEvent } from '../../../src/execution/reconciliation/stream-order-rules';
import type { OrderRecord } from '../../../src/store/order-store-port';

const wire = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 7, market: 'BTC_USDT', type: 3, side: 2, amount: '0.1', left: '0.1', deal_stock: '0', deal_money: '0', deal_fee: '0',
  price: '105.5', ctime: 100, mtime: 100, client_order_id: 'tb-a', status: 'OPEN', ...over,
});
const ev = (id: 1 | 2 | 3, over: Record<string, unknown> = {}) => parseOrderEvent([id, wire(over)])!;
const record = (over: Partial<OrderRecord> = {}): OrderRecord => ({
  clientOrderId: 'tb-a', strategy: 's', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit', amount: '0.1', price: '105.5',
  activationPrice: '105', stopLimitPrice: undefined, candleTime: 0, status: 'open', orderId: 7, ocoId: undefined,
  filledAmount: '0', filledMoney: '0', fee: '0', history: [], createdAtMs: 0, updatedAtMs: 0, ...over,
} as OrderRecord);
const fresh = { previousNew: undefined, text: 'a' };

describe('which stream pushes the journal may take alone', () => {
  test('unknown to the journal, OCO legs and another order id: the venue is asked', () => {
    expect(decideOrderEvent(undefined, ev(2), fresh).kind).toBe('ask_market');
    expect(decideOrderEvent(record({ kind: 'oco_sl' }), ev(2), fresh).kind).toBe('ask_record');
    expect(decideOrderEvent(record({ orderId: 8 }), ev(2), fresh))
      .toMatchObject({ kind: 'mismatch', disagreement: { field: 'orderId', journaled: '8', reported: '7' } });
  });

  test('a push that claims the record but disagrees is never applied, with or without an order id journaled', () => {
    // The finding: a 1 BTC record, not yet acknowledged; a push for another market, side or amount with its client id.
    const big = (over: Partial<OrderRecord> = {}): OrderRecord => record({ status: 'submitted', orderId: undefined, amount: '1', ...over });
    const done = (over: Record<string, unknown>) => ev(3, { amount: '1', left: '0', deal_stock: '1', deal_money: '105.5', ...over });
    const cases: [Record<string, unknown>, string, string, string][] = [
      [{ market: 'ETH_USDT' }, 'market', 'BTC_USDT', 'ETH_USDT'],
      [{ side: 1 }, 'side', 'buy', 'sell'],
      [{ type: 1 }, 'kind', 'stop_limit', 'limit'],
      [{ amount: '0.0001', deal_stock: '0.0001' }, 'amount', '1', '0.0001'],
      [{ price: '99' }, 'price', '105.5', '99'],
    ];
    for (const [over, field, journaled, reported] of cases) {
      for (const rec of [big(), big({ status: 'open', orderId: 7 })]) {
        expect([field, decideOrderEvent(rec, done(over), fresh)]).toEqual([field, { kind: 'mismatch', record: rec, disagreement: { field, journaled, reported } }]);
      }
    }
    // The same facts, spelled differently, agree (decimals, not text).
    expect(decideOrderEvent(big(), done({ amount: '1.000', price: '105.50' }), fresh).kind).toBe('apply');
  });

  test('fills and finishes apply; less filled than the journal is older and ignored', () => {
    expect(decideOrderEvent(record(), ev(2, { left: '0.05', deal_stock: '0.05' }), fresh).kind).toBe('apply');
    expect(decideOrderEvent(record({ status: 'partially_filled', filledAmount: '0.08' }), ev(2, { left: '0.05', deal_stock: '0.05' }), fresh))
      .toEqual({ kind: 'ignore', reason: 'older than the journal' });
    expect(decideOrderEvent(record({ status: 'pending' }), ev(3), fresh).kind).toBe('ignore');
  });

  test('a stop\'s event 1: accept while unsettled, placement and duplicates ignored, activation only after the placement was seen', () => {
    expect(decideOrderEvent(record({ status: 'submitted' }), ev(1), fresh).kind).toBe('apply');
    expect(decideOrderEvent(record(), ev(1), fresh)).toEqual({ kind: 'ignore', reason: 'placement, already journaled' });
    expect(decideOrderEvent(record(), ev(1, { mtime: 160 }), { previousNew: 'x', text: 'x' })).toEqual({ kind: 'ignore', reason: 'duplicate' });
    expect(decideOrderEvent(record(), ev(1, { mtime: 160 }), fresh).kind).toBe('ask_record');
    const trigger = decideOrderEvent(record(), ev(1, { mtime: 160 }), { previousNew: 'placement', text: 'activation' });
    expect(trigger.kind).toBe('apply');
    expect(trigger.kind === 'apply' && trigger.event.report.activated).toBe(true);
  });
});

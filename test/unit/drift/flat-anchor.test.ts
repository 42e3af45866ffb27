import { flatAnchor } from '../../../src/drift/flat-anchor';
import type { OrderRecord } from '../../../src/store/order-store-port';

// Orders of one strategy; each finishes `endsAfter` seconds after its candle (market time = wall time here).
function order(candleTime: number, side: 'buy' | 'sell', filled: string, status: OrderRecord['status'] = 'filled', endsAfter = 90, market = 'BTC_USDT'): OrderRecord {
  return {
    clientOrderId: `tb-${candleTime}-${side}`, strategy: 's', market, side, kind: 'stop_limit', amount: '1', price: '100',
    activationPrice: '100', stopLimitPrice: undefined, candleTime, status, orderId: 1, ocoId: undefined, filledAmount: filled,
    filledMoney: '0', fee: '0', createdAtMs: candleTime * 1000, updatedAtMs: (candleTime + endsAfter) * 1000, reason: undefined,
    fencingToken: undefined, history: [{ atMs: (candleTime + endsAfter) * 1000, event: 'record', from: null, to: status }],
  };
}
const ended = (r: OrderRecord): number | undefined => r.history.at(-1)?.atMs;

test('flat at the window start: the replay starts there', () => {
  expect(flatAnchor([order(0, 'buy', '1'), order(120, 'sell', '1')], 600, 0, ended)).toBe(600);
});

test('holding stock at the window start: the last moment before the buy that opened it', () => {
  const records = [order(0, 'buy', '1'), order(120, 'sell', '1'), order(300, 'buy', '1')];
  expect(flatAnchor(records, 600, 0, ended)).toBe(300);
});

test('an order still open (or ended after the candidate) is not flat; an unfilled cancel is', () => {
  expect(flatAnchor([order(0, 'buy', '0', 'canceled'), order(300, 'buy', '0', 'open')], 600, 0, ended)).toBe(300);
  // The cancel at 0 ended at 400: not finished by 300, so the anchor goes back before it.
  expect(flatAnchor([order(0, 'buy', '0', 'canceled', 400), order(300, 'buy', '0', 'open')], 600, 0, ended)).toBe(0);
});

test('a position on any market of the strategy counts; none found within the bound gives undefined', () => {
  const records = [order(0, 'buy', '1', 'filled', 90, 'ETH_USDT'), order(120, 'buy', '1'), order(240, 'sell', '1')];
  expect(flatAnchor(records, 600, 0, ended)).toBe(0);
  expect(flatAnchor(records, 600, 60, ended)).toBeUndefined();
});

test('an end time that cannot be placed on the market clock counts as still open', () => {
  expect(flatAnchor([order(0, 'buy', '0', 'canceled'), order(300, 'sell', '0', 'canceled')], 600, 0, (r) => (r.candleTime === 300 ? undefined : ended(r)))).toBe(300);
});

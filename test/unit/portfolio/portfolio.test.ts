import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { Portfolio } from '../../../src/portfolio/portfolio';

const D = (v: string | number): Decimal => new Decimal(v);
const DAY = 86_400_000;

function book(clockMs = 10 * DAY) {
  const p = new Portfolio(new ManualClock(clockMs));
  const fill = (side: 'buy' | 'sell', amount: string, price: string, fee = '0', strategy = 's', timeMs?: number) =>
    p.applyFill({ strategy, market: 'BTC_USDT', side, amount: D(amount), price: D(price), fee: D(fee), timeMs }).toString();
  return { p, fill };
}

describe('Portfolio: average cost per (strategy, market)', () => {
  test('adding averages the entry (fees not in it); reducing realises against the average and keeps it', () => {
    const { p, fill } = book();
    expect(fill('buy', '1', '100', '0.1')).toBe('-0.1'); // the entry fee is realised when paid
    expect(fill('buy', '1', '200', '0.2')).toBe('-0.2');
    expect(p.position('s', 'BTC_USDT', D(160))).toEqual({ amount: D(2), averageEntry: D(150), unrealizedPnl: D(20) });
    expect(fill('sell', '0.5', '170', '0.085')).toBe('9.915'); // 0.5 x (170 - 150) - fee
    expect(p.position('s', 'BTC_USDT', D(150)).averageEntry).toEqual(D(150));
    expect(fill('sell', '1.5', '140', '0')).toBe('-15');
    expect(p.position('s', 'BTC_USDT', D(150))).toEqual({ amount: D(0), averageEntry: undefined, unrealizedPnl: D(0) });
    const s = p.state('s', 'BTC_USDT')!;
    expect([s.realizedPnl.toString(), s.fees.toString()]).toEqual(['-5.385', '0.385']);
    expect(p.realizedToday().toString()).toBe('-5.385');
  });

  test('a short realises when covered; a fill through zero opens the rest the other way at its price', () => {
    const { p, fill } = book();
    fill('sell', '2', '100');
    expect(p.position('s', 'BTC_USDT', D(90)).unrealizedPnl.toString()).toBe('20');
    expect(fill('buy', '3', '90')).toBe('20'); // covers 2 at +10 each, then long 1 at 90
    expect(p.position('s', 'BTC_USDT', D(90))).toEqual({ amount: D(1), averageEntry: D(90), unrealizedPnl: D(0) });
  });

  test('strategies keep their own positions on one market; today sums them all, a past day is not today', () => {
    const { p, fill } = book();
    fill('buy', '1', '100', '0', 'a');
    fill('sell', '1', '120', '0', 'b'); // b goes short: nothing realised
    expect(p.position('a', 'BTC_USDT', D(100)).amount.toString()).toBe('1');
    expect(p.position('b', 'BTC_USDT', D(100)).amount.toString()).toBe('-1');
    fill('sell', '1', '90', '0', 'a'); // -10
    fill('buy', '1', '100', '0', 'b', 9 * DAY); // +20, yesterday
    expect(p.realizedToday().toString()).toBe('-10');
    expect(p.exposure('b', 'BTC_USDT', D(100)).toString()).toBe('0');
  });

  test('listeners see every fill with the position after it', () => {
    const { p, fill } = book();
    const seen: string[] = [];
    p.onFill((state, f, realized) => seen.push(`${f.side} ${state.amount.toString()} ${realized.toString()}`));
    fill('buy', '1', '100');
    fill('sell', '1', '110');
    expect(seen).toEqual(['buy 1 0', 'sell 0 10']);
  });
});

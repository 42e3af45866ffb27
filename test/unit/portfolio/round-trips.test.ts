import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { Portfolio } from '../../../src/portfolio/portfolio';
import { RoundTripBook, type RoundTrip } from '../../../src/portfolio/round-trips';

const D = (v: string): Decimal => new Decimal(v);

describe('RoundTripBook: position round trips from the portfolio\'s own accounting', () => {
  test('scaling in and out is one trip; flat to flat realises exactly exit - entry notional; a flip splits its fee', () => {
    const p = new Portfolio(new ManualClock(0));
    const closed: RoundTrip[] = [];
    const book = new RoundTripBook(p, (t) => closed.push(t));
    const fill = (side: 'buy' | 'sell', amount: string, price: string, fee: string, timeMs: number): string => {
      p.applyFill({ strategy: 's', market: 'BTC_USDT', side, amount: D(amount), price: D(price), fee: D(fee), timeMs });
      return book.lastAction();
    };
    // Three entries whose average (10 + 11 + 11) / 3 has no finite decimal; two exits.
    expect([fill('buy', '1', '10', '0.01', 1), fill('buy', '1', '11', '0.011', 2), fill('buy', '1', '11', '0.011', 3)]).toEqual(['entry', 'entry', 'entry']);
    expect(fill('sell', '1', '12', '0.012', 4)).toBe('exit');
    expect(closed).toEqual([]);
    expect(fill('sell', '2', '13', '0.026', 5)).toBe('exit');
    expect(closed).toHaveLength(1);
    const t = closed[0]!;
    // 12 + 26 - 32 = 6 exactly, though each exit was priced against the rounded average entry.
    expect([t.direction, t.entered.toString(), t.entryNotional.toString(), t.exitNotional.toString(), t.gross.toString(), t.fees.toString(), t.fills, t.openTimeMs, t.closeTimeMs])
      .toEqual(['long', '3', '32', '38', '6', '0.07', 5, 1, 5]);
    expect(p.state('s', 'BTC_USDT')!.realizedPnl.toString()).toBe('5.93');

    // A sell of 3 against a long of 1: closes it with a third of the fill (and of its fee), opens a short of 2.
    fill('buy', '1', '20', '0', 6);
    expect(fill('sell', '3', '21', '0.3', 7)).toBe('flip');
    expect(closed).toHaveLength(2);
    expect([closed[1]!.gross.toString(), closed[1]!.fees.toString()]).toEqual(['1', '0.1']);
    const open = book.openTrips();
    expect(open.map((o) => [o.direction, o.entered.toString(), o.entryNotional.toString(), o.fees.toString(), o.fills])).toEqual([['short', '2', '42', '0.2', 1]]);
  });
});

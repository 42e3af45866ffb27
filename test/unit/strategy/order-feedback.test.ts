import { ManualClock } from '../../../src/core/clock';
import { Portfolio } from '../../../src/portfolio/portfolio';
import { Decimal } from '../../../src/domain/decimal';
import { OrderFeedback, type FillInput } from '../../../src/strategy/order-feedback';

const d = (v: string): Decimal => new Decimal(v);
const fill = (over: Partial<FillInput>): FillInput => ({
  strategy: 's', market: 'BTC_USDT', clientOrderId: 'a', side: 'buy', amount: d('1'), price: d('100'), fee: d('0.1'),
  filledAmount: d('1'), complete: true, ...over,
});

describe('OrderFeedback', () => {
  test('events are per (strategy, market), oldest first, and taken once', () => {
    const f = new OrderFeedback(new Portfolio(new ManualClock(0)));
    f.denied('s', 'BTC_USDT', 'balance', 'needs 5 USDT');
    f.fill(fill({ complete: false, amount: d('0.4'), filledAmount: d('0.4') }));
    f.rejected('other', 'BTC_USDT', 'x', 'no');
    expect(f.take('s', 'BTC_USDT').map((e) => e.type)).toEqual(['denied', 'partially_filled']);
    expect(f.take('s', 'BTC_USDT')).toEqual([]);
    expect(f.take('other', 'BTC_USDT')).toEqual([{ type: 'rejected', clientOrderId: 'x', reason: 'no' }]);
  });

  test('position: average entry while adding, kept while reducing, new entry when it crosses zero; unrealised at the close', () => {
    const f = new OrderFeedback(new Portfolio(new ManualClock(0)));
    expect(f.position('s', 'BTC_USDT', d('1'))).toEqual({ amount: d('0'), averageEntry: undefined, unrealizedPnl: d('0') });
    f.fill(fill({ amount: d('1'), price: d('100') }));
    f.fill(fill({ amount: d('3'), price: d('200') }));
    expect(f.position('s', 'BTC_USDT', d('200')).averageEntry!.toString()).toBe('175');
    expect(f.position('s', 'BTC_USDT', d('200')).unrealizedPnl.toString()).toBe('100');
    f.fill(fill({ side: 'sell', amount: d('2'), price: d('300') }));
    expect(f.position('s', 'BTC_USDT', d('300'))).toEqual({ amount: d('2'), averageEntry: d('175'), unrealizedPnl: d('250') });
    f.fill(fill({ side: 'sell', amount: d('3'), price: d('250') }));
    expect(f.position('s', 'BTC_USDT', d('240'))).toEqual({ amount: d('-1'), averageEntry: d('250'), unrealizedPnl: d('10') });
    f.fill(fill({ side: 'buy', amount: d('1'), price: d('240') }));
    expect(f.position('s', 'BTC_USDT', d('240')).averageEntry).toBeUndefined();
    expect(f.position('s', 'ETH_USDT', d('1')).amount.isZero()).toBe(true);
  });

  test('an OCO leg ended by the other leg executing or triggering is not reported; a whole OCO cancel is reported once', () => {
    const f = new OrderFeedback(new Portfolio(new ManualClock(0)));
    f.fill(fill({ clientOrderId: 'oco1', side: 'sell', leg: 'take_profit' }));
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco1', filledAmount: d('0'), leg: 'stop_loss' });
    expect(f.take('s', 'BTC_USDT').map((e) => e.type)).toEqual(['filled']);

    // The daemon may journal the stop-loss leg's cancel before the take-profit's fill (one settlement).
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco5', filledAmount: d('0'), leg: 'stop_loss' });
    f.fill(fill({ clientOrderId: 'oco5', side: 'sell', leg: 'take_profit' }));
    expect(f.take('s', 'BTC_USDT').map((e) => e.type)).toEqual(['filled']);

    f.triggered('oco2', 'stop_loss');
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco2', filledAmount: d('0'), leg: 'take_profit' });
    expect(f.take('s', 'BTC_USDT')).toEqual([]);

    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco3', filledAmount: d('0'), leg: 'stop_loss' });
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco3', filledAmount: d('0'), leg: 'take_profit' });
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'plain', filledAmount: d('0.5') });
    f.cancelled({ strategy: 's', market: 'BTC_USDT', clientOrderId: 'oco4', filledAmount: d('0'), leg: 'stop_loss', byOcoRule: true });
    expect(f.take('s', 'BTC_USDT')).toEqual([
      { type: 'cancelled', clientOrderId: 'oco3', filledAmount: d('0') },
      { type: 'cancelled', clientOrderId: 'plain', filledAmount: d('0.5') },
    ]);
  });

  test('a seeded fill moves the position without an event', () => {
    const f = new OrderFeedback(new Portfolio(new ManualClock(0)));
    f.seedFill(fill({ amount: d('2'), price: d('10') }));
    expect(f.take('s', 'BTC_USDT')).toEqual([]);
    expect(f.position('s', 'BTC_USDT', d('11')).unrealizedPnl.toString()).toBe('2');
  });

  test('a strategy that does not run (paused) keeps at most the newest 1000 events', () => {
    const f = new OrderFeedback(new Portfolio(new ManualClock(0)));
    for (let i = 0; i < 1005; i++) f.denied('s', 'BTC_USDT', 'balance', String(i));
    const events = f.take('s', 'BTC_USDT');
    expect(events).toHaveLength(1000);
    expect(events[0]).toEqual({ type: 'denied', rule: 'balance', reason: '5' });
  });
});

import { ManualClock } from '../../../src/core/clock';
import { CandleRolloverWatch, LastPriceBook } from '../../../src/market-data/market-stream';

const tick = (time: number, market = 'BTC_USDT'): unknown[] => [[time, '1', '1', '1', '1', '1', '1', market]];

describe('candle rollover', () => {
  test('a new open time closes the previous candle once; repeats, older ticks, other markets and garbage do nothing', () => {
    const clock = new ManualClock(10_000_000);
    const closed: number[] = [];
    const invalid: string[] = [];
    const w = new CandleRolloverWatch('BTC_USDT', '1m', { clock, cacheMs: 0, onClosed: (_m, _i, t) => closed.push(t), onInvalid: (r) => invalid.push(r) });
    w.onPush('candles_update', tick(9_000));
    w.onPush('candles_update', tick(9_000));
    expect(closed).toEqual([]);
    w.onPush('candles_update', tick(9_060));
    w.onPush('candles_update', tick(9_060));
    w.onPush('candles_update', tick(9_000));
    w.onPush('candles_update', tick(9_120, 'ETH_USDT'));
    w.onPush('candles_update', [['x']]);
    w.onPush('lastprice_update', ['BTC_USDT', '1']);
    expect(closed).toEqual([9_000]);
    expect(invalid).toEqual(['bad candles_update']);
    w.reset();
    w.onPush('candles_update', tick(9_180));
    expect(closed).toEqual([9_000]);
  });
});

describe('last price', () => {
  test('given out only while fresh', () => {
    let now = 0;
    const book = new LastPriceBook(1000, () => now);
    book.onPush('lastprice_update', ['BTC_USDT', '101']);
    expect(book.get('BTC_USDT')?.toString()).toBe('101');
    now = 1001;
    expect(book.get('BTC_USDT')).toBeUndefined();
    expect(book.get('ETH_USDT')).toBeUndefined();
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { InvalidDecimalError } from '../../../src/domain/errors';
import {
  loadCsvRows, readCsvCandles, rowToCandle, writeCsvCandles, type CsvCandleRow,
} from '../../../src/candle-files/csv-candles';
import { SimEngine } from '../../../src/simulator/engine/sim-engine';
import { partialAlongPath } from '../../../src/simulator/engine/price-path';
import { RandomWalkSource, RowsCandleSource } from '../../../src/simulator/market/candle-source';
import { buildKlines } from '../../../src/simulator/market/klines';
import { MarketFeed } from '../../../src/simulator/market/market-feed';
import { simMarketInfo } from '../../../src/simulator/sim-markets';

const T0 = 1_700_000_040;
const row = (i: number, o: string, h: string, l: string, c: string): CsvCandleRow => ({ time: T0 + i * 60, open: o, high: h, low: l, close: c, volume: '1.5' });
// Minute 3 is missing: a gap, as in the real data.
const rows = [row(0, '100', '102', '99', '101'), row(1, '101', '103', '100', '102'), row(2, '102', '104', '101', '103'), row(4, '103', '110', '90', '95')];

describe('candle CSV', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'csv-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('round trip keeps decimals as text; streaming reader checks order and header', async () => {
    const path = join(dir, 'a.csv');
    writeFileSync(path, 'time,open,high,low,close,volume\n1631917380,47336.47,47336.48,47295.0,47310.83,8.83233\n1631917440,1,2,0.5,1.5,0\n');
    const loaded = await loadCsvRows(path);
    expect(loaded[0]).toEqual({ time: 1631917380, open: '47336.47', high: '47336.48', low: '47295.0', close: '47310.83', volume: '8.83233' });
    const candles = [];
    for await (const c of readCsvCandles(path)) candles.push(c);
    expect(candles[0]!.volumeMoney.toString()).toBe(new Decimal('8.83233').times('47310.83').toString());
    const out = join(dir, 'b.csv');
    expect(await writeCsvCandles(out, candles)).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('time,open,high,low,close,volume\n1631917380,47336.47,47336.48,47295,47310.83,8.83233\n1631917440,1,2,0.5,1.5,0\n');

    writeFileSync(path, 'time,open,high,low,close,volume\n20,1,1,1,1,1\n10,1,1,1,1,1\n');
    await expect(loadCsvRows(path)).rejects.toBeInstanceOf(InvalidDecimalError);
    writeFileSync(path, 'time,open,high,low,close,volume\n20,1e3,1,1,1,1\n');
    await expect(loadCsvRows(path)).rejects.toThrow('not a plain decimal');
  });

  test('the sample data files load and are small', async () => {
    for (const name of ['btc_usdt-1m-sample.csv', 'eth_usdt-1m-sample.csv']) {
      const path = join(__dirname, '..', '..', '..', 'config', 'data', name);
      const loaded = await loadCsvRows(path);
      expect(loaded.length).toBeGreaterThan(3000);
      expect(readFileSync(path).length).toBeLessThan(300_000);
    }
  });
});

describe('price path partials', () => {
  test('walks open -> nearer extreme -> other extreme -> close by path length', () => {
    const c = rowToCandle(row(0, '100', '110', '95', '105')); // low nearer: 100 -> 95 -> 110 -> 105, length 5+15+5 = 25
    expect(partialAlongPath(c, 0.2)).toEqual({ high: new Decimal(100), low: new Decimal(95), price: new Decimal(95) });
    const half = partialAlongPath(c, 0.5); // 12.5 along: 95 + 7.5
    expect(half.price.toString()).toBe('102.5');
    expect(partialAlongPath(c, 1).price.toString()).toBe('105');
  });
});

describe('klines', () => {
  const info = simMarketInfo('BTC_USDT');
  const source = new RowsCandleSource(rows);

  test('history, gap kept, open candle last with partial values', () => {
    const k = buildKlines(source, info, T0 + 4 * 60 + 30, { interval: '1m', start: T0 });
    expect(k.map((r) => r[0])).toEqual([T0, T0 + 60, T0 + 120, T0 + 240]);
    expect(k[0]).toEqual([T0, '100.00', '101.00', '102.00', '99.00', '1.5', '151.5']);
    const open = k[3]!; // high nearer: 103 -> 110 -> 90 -> 95 (length 32); half-way, 16 along = 110 - 9
    expect(open.slice(1, 5)).toEqual(['103.00', '101.00', '110.00', '101.00']);
    expect(open[5]).toBe('0.75');
  });

  test('aggregates to larger intervals; limit and default period', () => {
    // 5m buckets open at T0 - 240 (holds T0) and T0 + 60 (holds T0+60 .. T0+240, minute 3 missing).
    const fiveMin = buildKlines(source, info, T0 + 600, { interval: '5m', start: T0 - 240 });
    expect(fiveMin.map((r) => r.slice(0, 5))).toEqual([
      [T0 - 240, '100.00', '101.00', '102.00', '99.00'],
      [T0 + 60, '101.00', '95.00', '110.00', '90.00'],
    ]);
    expect(fiveMin[1]![5]).toBe('4.5');
    // A start inside a bucket skips that bucket: only candles opening at or after start.
    expect(buildKlines(source, info, T0 + 600, { interval: '5m', start: T0 - 40 })).toHaveLength(1);
    expect(buildKlines(source, info, T0 + 600, { interval: '1m', start: T0, limit: 2 }).map((r) => r[0])).toEqual([T0, T0 + 60]);
    expect(buildKlines(source, info, T0 + 600, { interval: '1m', limit: 2 }).map((r) => r[0])).toEqual([T0 + 120, T0 + 240]);
    expect(buildKlines(source, info, T0 + 600, { interval: '1m', end: T0 + 60 }).map((r) => r[0])).toEqual([T0, T0 + 60]);
  });
});

describe('market feed', () => {
  test('applies closed candles as the clock passes boundaries; gaps apply nothing', () => {
    const clock = new ManualClock(T0 * 1000, { real: new ManualClock(0) });
    const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')] });
    engine.openAccount('k', { trading: { USDT: '1000' } });
    const feed = new MarketFeed(engine, clock, new Map([['BTC_USDT', new RowsCandleSource(rows)]]));
    expect(engine.lastPrice('BTC_USDT')?.toString()).toBe('100');
    const order = engine.placeLimit('k', { market: 'BTC_USDT', side: 'buy', amount: new Decimal('0.1'), price: new Decimal('92') });

    clock.advanceTo(T0 + 90);
    feed.sync();
    expect(engine.lastPrice('BTC_USDT')?.toString()).not.toBe('101'); // moved along the open candle
    clock.advanceTo(T0 + 240); // minute 3 is a gap: last price stays at minute 2's close
    feed.sync();
    expect(engine.lastPrice('BTC_USDT')?.toString()).toBe('103');
    expect(order.status).toBe('OPEN');
    clock.advanceTo(T0 + 300);
    const events = feed.sync();
    expect(events.map((e) => e.type)).toEqual(['filled']);
    expect(order.dealMoney.toString()).toBe('9.2');
  });

  test('random walk is deterministic for a seed and contiguous', () => {
    const a = new RandomWalkSource(T0, 30_000, 7, 2).rowsBetween(T0, T0 + 600);
    const b = new RandomWalkSource(T0, 30_000, 7, 2).rowsBetween(T0, T0 + 600);
    expect(a).toEqual(b);
    expect(a.map((r) => r.time)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + i * 60));
    expect(a[1]!.open).toBe(a[0]!.close);
    expect(new RandomWalkSource(T0, 30_000, 8, 2).rowsBetween(T0, T0 + 60)[0]!.close).not.toBe(a[0]!.close);
  });

  test('market clock runs at speed and can be driven forward only', () => {
    const real = new ManualClock(1_000_000);
    const clock = new ManualClock(T0 * 1000, { speed: 60, real });
    real.advanceMs(1000);
    expect(clock.nowMs()).toBe((T0 + 60) * 1000);
    clock.advanceTo(T0); // the past: ignored
    expect(clock.nowMs()).toBe((T0 + 60) * 1000);
    clock.setSpeed(0);
    real.advanceMs(5000);
    expect(clock.nowMs()).toBe((T0 + 60) * 1000);
  });
});

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { SMA } from 'technicalindicators';
import type { Candle } from '../src/domain/candle';
import { Decimal } from '../src/domain/decimal';
import { loadCsvRows, rowToCandle } from '../src/candle-files/csv-candles';
import { BacktestReplay } from '../src/backtest/replay/backtest-replay';
import { loadNamedStrategy, type StrategyCache } from '../src/backtest/run-backtest';
import { simMarketInfo } from '../src/simulator/sim-markets';
import { decimalToNumber } from '../src/strategy/candle-series';
import { CandleColumns } from '../src/candle-files/csv-columns';
import type { BenchRow } from './bench-types';

/**
 * Backtest throughput on a full year of 1-minute candles (525,600), end to end: StrategyHost +
 * sma-cross (on 1m candles) + the trading kernel (risk gate, Executor, in-memory journal, settlement,
 * order feedback, portfolio) over the in-process exchange + SimEngine fills, against the floor of
 * the same run: a plain loop feeding the same candles' closes to two technicalindicators SMA objects
 * (nextValue). The year is built in memory by repeating the real 1m BTC/USDT month with shifted
 * timestamps (Decimal objects shared between repeats); the CSV is parsed once, outside the timing.
 * Goals: >= 1,000,000 candles/s end to end, within 2x of the floor. Floor and pipeline alternate in
 * each round (the machine is shared: both see the same load); the strategy module is transpiled once
 * and re-prepared for every run, as a sweep worker does. One row runs the same year from CSV columns
 * (as the CLI and sweeps read a file), against the same floor.
 */
const YEAR = 525_600;
const ROUNDS = 3;
const ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const SOURCES = [
  '/work/shared/data/btc_usdt-1m-binance-2021-09.csv',
  path.join(ROOT, 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv'),
];

export async function buildYear(): Promise<{ candles: Candle[]; source: string }> {
  const source = SOURCES.find((f) => existsSync(f));
  if (source === undefined) throw new Error('no 1m candle data found');
  const base = (await loadCsvRows(source)).map(rowToCandle);
  const first = base[0]!.time;
  const span = base[base.length - 1]!.time - first + 60;
  const candles: Candle[] = [];
  for (let rep = 0; candles.length < YEAR; rep++) {
    for (const c of base) {
      if (candles.length >= YEAR) break;
      candles.push({ ...c, time: c.time + rep * span });
    }
  }
  return { candles, source };
}

function floorRun(candles: readonly Candle[]): number {
  const fast = new SMA({ period: 10, values: [] });
  const slow = new SMA({ period: 30, values: [] });
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < candles.length; i++) {
    const x = decimalToNumber((candles[i] as Candle).close);
    const f = fast.nextValue(x);
    const s = slow.nextValue(x);
    if (f !== undefined && s !== undefined && f > s) sink++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink < 0) throw new Error('unreachable');
  return candles.length / seconds;
}

/** One run of sma-cross on 1m candles with these parameters: time in the replay, intents handled, fills. */
export async function backtestRun(candles: readonly Candle[], params: Record<string, unknown>, cache: StrategyCache): Promise<{ seconds: number; rate: number; orders: number; fills: number }> {
  // The module is transpiled once and re-prepared per run (fresh state), as a sweep worker does.
  const strategy = loadNamedStrategy(
    { strategy: 'sma-cross', strategiesDir: path.join(ROOT, 'strategies'), interval: '1m', params, balances: {} },
    ['BTC_USDT'], cache,
  );
  const replay = new BacktestReplay({
    strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles }], dataInterval: '1m',
    balances: { USDT: new Decimal(10_000) },
  });
  const start = process.hrtime.bigint();
  const result = await replay.run();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, rate: candles.length / seconds, orders: result.orders.length, fills: result.fills.length };
}

export async function run(): Promise<BenchRow[]> {
  const { candles, source } = await buildYear();
  const rows: BenchRow[] = [];
  const cache: StrategyCache = new Map();
  // The same year as the CLI and sweeps hold it (CSV columns, Decimals built only when read).
  const columns = new CandleColumns(candles.length);
  for (const c of candles) columns.push(c.time, decimalToNumber(c.open), decimalToNumber(c.high), decimalToNumber(c.low), decimalToNumber(c.close), decimalToNumber(c.volume));
  const columnCandles = columns.candles();
  for (const [label, params, input] of [
    ['defaults 10/30', {}, candles],
    ['defaults 10/30, candles from CSV columns as the CLI reads them', {}, columnCandles],
    ['50/200', { fast: 50, slow: 200 }, candles],
    // The same signals, sized to zero: no order is ever placed, so this is the pipeline's own cost.
    ['10/30 signals only, no orders', { quoteAmount: '0' }, candles],
  ] as const) {
    const floors: number[] = [];
    const ends: number[] = [];
    let last = { seconds: 0, rate: 0, orders: 0, fills: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      floors.push(floorRun(candles));
      last = await backtestRun(input, params, cache);
      ends.push(last.rate);
    }
    const floor = Math.max(...floors);
    const end = Math.max(...ends);
    const note = `${candles.length} candles from ${path.basename(source)}; ${last.orders} intents handled, ${last.fills} fills; best of ${ROUNDS}`;
    rows.push({ name: `floor: 2 technicalindicators SMA nextValue (${label})`, value: Math.round(floor), unit: 'candles/s' });
    rows.push({ name: `end to end: host + sma-cross ${label} on 1m + risk + engine`, value: Math.round(end), unit: 'candles/s', note });
    rows.push({ name: `floor / end to end (${label})`, value: Number((floor / end).toFixed(2)), unit: 'x', note: 'goal <= 2' });
  }
  return rows;
}

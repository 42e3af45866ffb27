import { mkdtempSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CandleAggregator } from '../../../src/backtest/replay/candle-aggregator';
import type { Candle } from '../../../src/domain/candle';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import { CLOSE, closeNumber, readCsvColumns } from '../../../src/candle-files/csv-columns';

const FIXTURE = path.resolve(__dirname, '../../fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv');
const dir = mkdtempSync(path.join(tmpdir(), 'csv-columns-'));
let n = 0;
function csv(text: string): string {
  const file = path.join(dir, `f${n++}.csv`);
  writeFileSync(file, text);
  return file;
}
const HEADER = 'time,open,high,low,close,volume\n';
const fields = (c: Candle): string[] => [c.open, c.high, c.low, c.close, c.volume, c.volumeMoney].map(String);

test('real candles: the same times and decimals as the row reader, the file hash from the same reads', async () => {
  const rows = await loadCsvRows(FIXTURE);
  const { columns, sha256 } = await readCsvColumns(FIXTURE);
  expect(columns.length).toBe(rows.length);
  const candles = columns.candles();
  for (let i = 0; i < rows.length; i++) {
    const want = rowToCandle(rows[i]!);
    const got = candles[i]!;
    expect(got.time).toBe(want.time);
    expect(fields(got)).toEqual(fields(want));
    expect(closeNumber(got)).toBe(Number(rows[i]!.close));
  }
  expect(sha256).toBe(createHash('sha256').update(readFileSync(FIXTURE)).digest('hex'));
});

test('values keep their decimal exactly (trailing zeros, tiny volumes, 15 digits); CRLF, blank lines and no final newline are read', async () => {
  const file = csv(`${HEADER}1,47295.0,0.00000001,123456789.012345,0.1,8.83233000\r\n\n2,1,1,1,1,0`);
  const candles = (await readCsvColumns(file)).columns.candles();
  expect(candles.map((c) => [c.time, ...fields(c).slice(0, 5)])).toEqual([
    [1, '47295', '0.00000001', '123456789.012345', '0.1', '8.83233'],
    [2, '1', '1', '1', '1', '0'],
  ]);
  expect(candles[0]!.value(CLOSE)).toBe(0.1);
});

test.each([
  ['a wrong header', 'time,open,high,low,close\n', /header must be "time,open,high,low,close,volume"/],
  ['five fields', `${HEADER}1,1,1,1,1\n`, /candle CSV line 2: expected 6 fields, got 5/],
  ['a bad time', `${HEADER}1.5,1,1,1,1,1\n`, /candle CSV line 2: bad time "1.5"/],
  ['an exponent', `${HEADER}1,1e3,1,1,1,1\n`, /candle CSV line 2: open "1e3" is not a plain decimal/],
  ['a negative', `${HEADER}1,1,1,-1,1,1\n`, /candle CSV line 2: low "-1" is not a plain decimal/],
  ['an empty field', `${HEADER}1,1,1,1,,1\n`, /candle CSV line 2: close "" is not a plain decimal/],
  ['a dangling point', `${HEADER}1,1,1,1,1,1.\n`, /candle CSV line 2: volume "1." is not a plain decimal/],
  ['times not increasing', `${HEADER}2,1,1,1,1,1\n2,1,1,1,1,1\n`, /line 3: time not increasing/],
  ['more digits than a double keeps', `${HEADER}1,1.00000000000000001,1,1,1,1\n`, /open "1.00000000000000001" has more than 15 significant digits/],
])('refuses %s, naming the line', async (_what, text, message) => {
  await expect(readCsvColumns(csv(text))).rejects.toThrow(message);
});

test('16 digits made by trailing zeros are exact, and accepted', async () => {
  const candles = (await readCsvColumns(csv(`${HEADER}1,1.000000000000000,1,1,1,1\n`))).columns.candles();
  expect(candles[0]!.open.toString()).toBe('1');
});

test('1h candles aggregated from column rows equal those aggregated from Decimal candles', async () => {
  const rows = await loadCsvRows(FIXTURE);
  const columnCandles = (await readCsvColumns(FIXTURE)).columns.candles();
  const fromRows = new CandleAggregator('1h', '1m');
  const fromColumns = new CandleAggregator('1h', '1m');
  const a: string[][] = [];
  const b: string[][] = [];
  for (let i = 0; i < rows.length; i++) {
    const close = rows[i]!.time + 60;
    const gapA = fromRows.takeClosedBefore(rows[i]!.time);
    const gapB = fromColumns.takeClosedBefore(rows[i]!.time);
    if (gapA) a.push([String(gapA.closeTime), String(gapA.candle.time), ...fields(gapA.candle)]);
    if (gapB) b.push([String(gapB.closeTime), String(gapB.candle.time), ...fields(gapB.candle)]);
    const x = fromRows.push(rowToCandle(rows[i]!), close);
    const y = fromColumns.push(columnCandles[i]!, close);
    if (x) a.push([String(close), String(x.time), ...fields(x)]);
    if (y) b.push([String(close), String(y.time), ...fields(y)]);
  }
  expect(a.length).toBeGreaterThan(20);
  expect(b).toEqual(a);
});

test('a Decimal candle joining a bucket of column rows continues it with the same values', async () => {
  const columnCandles = (await readCsvColumns(FIXTURE)).columns.candles();
  const rows = (await loadCsvRows(FIXTURE)).map(rowToCandle);
  const start = rows.findIndex((c) => c.time % 3600 === 0);
  const mixed = new CandleAggregator('1h', '1m');
  const plain = new CandleAggregator('1h', '1m');
  let x: Candle | undefined;
  let y: Candle | undefined;
  for (let i = start; i < start + 60; i++) {
    x = mixed.push(i % 2 === 0 ? columnCandles[i]! : rows[i]!, rows[i]!.time + 60);
    y = plain.push(rows[i]!, rows[i]!.time + 60);
  }
  expect(fields(x!)).toEqual(fields(y!));
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import { CsvAppendFile } from '../../../src/backtest/download/csv-append-file';
import { GapTracker } from '../../../src/backtest/download/gap-tracker';

const dir = mkdtempSync(join(tmpdir(), 'tb-csv-'));
const candle = (time: number, close: string) => {
  const v = new Decimal(close);
  return { time, open: v, high: v, low: v, close: v, volume: new Decimal('1.5'), volumeMoney: v };
};

test('a new file gets the header; appended rows are whole lines; reopening resumes after the last row', () => {
  const path = join(dir, 'a.csv');
  const f = CsvAppendFile.open(path);
  expect(f.lastTime).toBeUndefined();
  f.append([candle(60, '1.0'), candle(120, '2.25')]);
  f.close();
  expect(readFileSync(path, 'utf8')).toBe('time,open,high,low,close,volume\n60,1,1,1,1,1.5\n120,2.25,2.25,2.25,2.25,1.5\n');
  const again = CsvAppendFile.open(path);
  expect(again.lastTime).toBe(120);
  again.close();
});

test('a torn last line is cut off before resuming', () => {
  const path = join(dir, 'b.csv');
  writeFileSync(path, 'time,open,high,low,close,volume\n60,1,1,1,1,1\n120,2,2,2,2,1\n180,3,3');
  const f = CsvAppendFile.open(path);
  expect(f.lastTime).toBe(120);
  expect(f.repairedBytes).toBe('180,3,3'.length);
  f.append([candle(180, '3')]);
  f.close();
  expect(readFileSync(path, 'utf8').trim().split('\n').at(-1)).toBe('180,3,3,3,3,1.5');
});

test('a file that is not a candle CSV is refused', () => {
  const path = join(dir, 'c.csv');
  writeFileSync(path, 'a,b\n1,2\n');
  expect(() => CsvAppendFile.open(path)).toThrow(/not a candle CSV/);
});

test('gap tracker: leading gap from the start, inner gaps, duplicates dropped', () => {
  const g = new GapTracker(60, 0);
  expect([120, 180, 180, 420, 300, 480].map((t) => g.accept(t))).toEqual([true, true, false, true, false, true]);
  expect(g.gaps).toEqual([{ from: 0, to: 60, missing: 2 }, { from: 240, to: 360, missing: 3 }]);
  expect(g.duplicates).toBe(2);
});

import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Candle } from '../domain/candle';
import { parseDecimal } from '../domain/decimal';
import { InvalidDecimalError } from '../domain/errors';

/**
 * The candle CSV format of /work/shared/data and of the download command:
 *
 *   time,open,high,low,close,volume
 *   1631917380,47336.47,47336.48,47295.0,47310.83,8.83233
 *
 * `time` is the candle OPEN time in Unix seconds; prices and volume are plain decimals kept as text
 * (never floats). The file has no money volume: `volumeMoney` is estimated as volume x close when
 * reading and is not written.
 */
export const CSV_HEADER = 'time,open,high,low,close,volume';

/** One row with its decimals still as text: cheap to keep 40k+ rows in memory, parsed on use. */
export interface CsvCandleRow {
  readonly time: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
}

/** Splits one data line; throws InvalidDecimalError naming the line when it is malformed. */
export function parseCsvRow(line: string, lineNo = 0): CsvCandleRow {
  const parts = line.split(',');
  if (parts.length !== 6) throw new InvalidDecimalError(`candle CSV line ${lineNo}: expected 6 fields, got ${parts.length}`, { lineNo });
  const [t, open, high, low, close, volume] = parts as [string, string, string, string, string, string];
  const time = Number(t);
  if (!Number.isSafeInteger(time) || time < 0) throw new InvalidDecimalError(`candle CSV line ${lineNo}: bad time "${t}"`, { lineNo });
  for (const [field, value] of [['open', open], ['high', high], ['low', low], ['close', close], ['volume', volume]] as const) {
    if (!/^\d+(?:\.\d+)?$/.test(value)) {
      throw new InvalidDecimalError(`candle CSV line ${lineNo}: ${field} "${value}" is not a plain decimal`, { lineNo, field });
    }
  }
  return { time, open, high, low, close, volume };
}

/** Turns a text row into a named Candle (Decimals). */
export function rowToCandle(row: CsvCandleRow): Candle {
  const close = parseDecimal(row.close, 'close');
  const volume = parseDecimal(row.volume, 'volume');
  return {
    time: row.time,
    open: parseDecimal(row.open, 'open'),
    high: parseDecimal(row.high, 'high'),
    low: parseDecimal(row.low, 'low'),
    close,
    volume,
    volumeMoney: volume.times(close),
  };
}

export function formatCsvRow(candle: Candle): string {
  return `${candle.time},${candle.open.toString()},${candle.high.toString()},${candle.low.toString()},${candle.close.toString()},${candle.volume.toString()}`;
}

/**
 * Streams the rows of a candle CSV without loading the file at once. Checks the header and that
 * times strictly increase (gaps are allowed and kept: nothing is invented).
 */
export async function* readCsvRows(path: string): AsyncGenerator<CsvCandleRow> {
  // Required here: the backtest reads CSV columns (csv-columns.ts) and only needs CSV_HEADER from this file.
  const { createInterface } = require('node:readline') as typeof import('node:readline');
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  let lastTime = -1;
  for await (const raw of lines) {
    lineNo += 1;
    const line = raw.trim();
    if (line === '') continue;
    if (lineNo === 1) {
      if (line !== CSV_HEADER) throw new InvalidDecimalError(`${path}: header must be "${CSV_HEADER}"`, { path });
      continue;
    }
    const row = parseCsvRow(line, lineNo);
    if (row.time <= lastTime) throw new InvalidDecimalError(`${path} line ${lineNo}: time not increasing`, { path, lineNo });
    lastTime = row.time;
    yield row;
  }
}

/** Streams the candles of a CSV file as Decimals. */
export async function* readCsvCandles(path: string): AsyncGenerator<Candle> {
  for await (const row of readCsvRows(path)) yield rowToCandle(row);
}

/** Reads every row into memory (text decimals); fine for the 40k-row files of a month of 1m candles. */
export async function loadCsvRows(path: string): Promise<CsvCandleRow[]> {
  const rows: CsvCandleRow[] = [];
  for await (const row of readCsvRows(path)) rows.push(row);
  return rows;
}

/**
 * Writes candles (sorted, as given) to `path` with the header, respecting back-pressure so a large
 * download never buffers the whole file in memory.
 */
export async function writeCsvCandles(path: string, candles: Iterable<Candle> | AsyncIterable<Candle>): Promise<number> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  let count = 0;
  try {
    if (!out.write(`${CSV_HEADER}\n`)) await once(out, 'drain');
    for await (const candle of candles) {
      if (!out.write(`${formatCsvRow(candle)}\n`)) await once(out, 'drain');
      count += 1;
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return count;
}

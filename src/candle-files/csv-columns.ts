import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Candle } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import { InvalidDecimalError } from '../domain/errors';
import { CSV_HEADER } from './csv-candles';

/** Column numbers of CandleColumns.values. */
export const OPEN = 0;
export const HIGH = 1;
export const LOW = 2;
export const CLOSE = 3;
export const VOLUME = 4;
const FIELDS = ['open', 'high', 'low', 'close', 'volume'] as const;

/** Up to this many significant digits a decimal survives a trip through a double unchanged. */
const EXACT_DIGITS = 15;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * The candles of one CSV file in typed arrays (8 bytes per value, 48 per row): a year of 1m candles
 * is 25 MB instead of the ~300 MB of Decimal objects, and the garbage collector never walks it.
 * Every value had at most 15 significant digits (checked when reading), so its double is exact:
 * `decimal()` gives back the very decimal the file held, and comparing two doubles compares the
 * decimals. Candles are handed out as ColumnCandle views that build Decimals only when read.
 */
export class CandleColumns {
  length = 0;
  time: Float64Array;
  readonly values: Float64Array[];

  constructor(capacity = 1 << 12) {
    this.time = new Float64Array(capacity);
    this.values = FIELDS.map(() => new Float64Array(capacity));
  }

  push(time: number, open: number, high: number, low: number, close: number, volume: number): void {
    if (this.length === this.time.length) this.grow();
    const i = this.length++;
    this.time[i] = time;
    (this.values[OPEN] as Float64Array)[i] = open;
    (this.values[HIGH] as Float64Array)[i] = high;
    (this.values[LOW] as Float64Array)[i] = low;
    (this.values[CLOSE] as Float64Array)[i] = close;
    (this.values[VOLUME] as Float64Array)[i] = volume;
  }

  /** The exact decimal of a value (its shortest double text is the file's decimal). */
  decimal(field: number, i: number): Decimal {
    return new Decimal(String((this.values[field] as Float64Array)[i]));
  }

  /** The rows as Candle views (one small object each; Decimals are built when a field is read). */
  candles(): ColumnCandle[] {
    const out = new Array<ColumnCandle>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = new ColumnCandle(this, i, this.time[i] as number);
    return out;
  }

  private grow(): void {
    const size = this.time.length * 2;
    const time = new Float64Array(size);
    time.set(this.time);
    this.time = time;
    for (let f = 0; f < this.values.length; f++) {
      const next = new Float64Array(size);
      next.set(this.values[f] as Float64Array);
      this.values[f] = next;
    }
  }
}

/**
 * One row of CandleColumns as a Candle. Fields are getters that build a new Decimal on each read
 * (nothing is kept: the engine and the report read most rows once, or not at all); `value()` reads
 * the exact double without building one.
 */
export class ColumnCandle implements Candle {
  constructor(readonly columns: CandleColumns, readonly index: number, readonly time: number) {}

  get open(): Decimal { return this.columns.decimal(OPEN, this.index); }
  get high(): Decimal { return this.columns.decimal(HIGH, this.index); }
  get low(): Decimal { return this.columns.decimal(LOW, this.index); }
  get close(): Decimal { return this.columns.decimal(CLOSE, this.index); }
  get volume(): Decimal { return this.columns.decimal(VOLUME, this.index); }
  /** Estimated as volume x close, as rowToCandle does (the file has no money volume). */
  get volumeMoney(): Decimal { return this.volume.times(this.close); }

  /** The double of a field (exact for the file's decimal): for comparisons and charts, never for money. */
  value(field: number): number {
    return (this.columns.values[field] as Float64Array)[this.index] as number;
  }
}

/** A candle's close as a double (charts, ratios; never money): read from the columns when it is a ColumnCandle. */
export function closeNumber(candle: Candle): number {
  return candle instanceof ColumnCandle ? candle.value(CLOSE) : candle.close.toNumber();
}

export interface CsvColumnsFile {
  readonly columns: CandleColumns;
  /** SHA-256 of the file's bytes, computed from the same reads. */
  readonly sha256: string;
}

/**
 * Reads a candle CSV (the format of csv-candles.ts) into columns, streaming: the file is read in
 * 1 MB chunks and parsed byte by byte, so memory is the columns plus one chunk, whatever the file's
 * size. Checks exactly what readCsvRows checks, with the same messages (header, six fields, time a
 * non-negative integer, plain decimals, strictly increasing times), plus that each value has at most
 * 15 significant digits (else it would not be exact in a double).
 */
export async function readCsvColumns(file: string): Promise<CsvColumnsFile> {
  // Sized from the file (a row takes 40+ bytes): no growing and copying on the way.
  const columns = new CandleColumns(Math.max(1 << 12, Math.ceil((await stat(file)).size / 40)));
  const hash = createHash('sha256');
  const parser = new LineParser(file, columns);
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    let start = 0;
    if (rest !== undefined) {
      // Only the line cut by the chunk boundary is joined (a few bytes), not the whole 1 MB chunk.
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      const joined = Buffer.concat([rest, chunk.subarray(0, nl)]);
      parser.line(joined, 0, joined.length);
      start = nl + 1;
      rest = undefined;
    }
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      parser.line(chunk, start, nl);
      start = nl + 1;
    }
    rest = start < chunk.length ? chunk.subarray(start) : undefined;
  }
  if (rest !== undefined) parser.line(rest, 0, rest.length);
  return { columns, sha256: hash.digest('hex') };
}

const COMMA = 44;
const DOT = 46;
const ZERO = 48;

class LineParser {
  private lineNo = 0;
  private lastTime = -1;
  private readonly row = new Float64Array(6);

  constructor(private readonly file: string, private readonly columns: CandleColumns) {}

  line(buf: Buffer, from: number, to: number): void {
    this.lineNo += 1;
    if (this.lineNo > 1 && this.plainRow(buf, from, to)) return;
    let s = from;
    let e = to;
    while (s < e && isSpace(buf[s] as number)) s++;
    while (e > s && isSpace(buf[e - 1] as number)) e--;
    if (s === e) return;
    if (this.lineNo === 1) {
      const header = buf.toString('utf8', s, e);
      if (header !== CSV_HEADER) throw new InvalidDecimalError(`${this.file}: header must be "${CSV_HEADER}"`, { path: this.file });
      return;
    }
    let field = 0;
    let start = s;
    for (let i = s; i <= e; i++) {
      if (i < e && buf[i] !== COMMA) continue;
      if (field < 6) this.row[field] = field === 0 ? this.time(buf, start, i) : this.decimal(buf, start, i, field - 1);
      field++;
      start = i + 1;
    }
    if (field !== 6) throw new InvalidDecimalError(`candle CSV line ${this.lineNo}: expected 6 fields, got ${field}`, { lineNo: this.lineNo });
    const r = this.row;
    const time = r[0] as number;
    if (time <= this.lastTime) throw new InvalidDecimalError(`${this.file} line ${this.lineNo}: time not increasing`, { path: this.file, lineNo: this.lineNo });
    this.lastTime = time;
    this.columns.push(time, r[1] as number, r[2] as number, r[3] as number, r[4] as number, r[5] as number);
  }

  /**
   * The common row (`time,open,high,low,close,volume`, plain digits, at most 15 significant digits a
   * value) in one pass over its bytes; false, with nothing pushed, for anything else, which the
   * general path then parses or refuses with its message. Half a million rows a year: the general
   * path's split-then-parse walk cost twice as much.
   */
  private plainRow(buf: Buffer, from: number, to: number): boolean {
    let e = to;
    while (e > from && isSpace(buf[e - 1] as number)) e--;
    let i = from;
    let time = 0;
    for (; i < e; i++) {
      const d = (buf[i] as number) - ZERO;
      if (d < 0 || d > 9) break;
      time = time * 10 + d;
    }
    if (i === from || i === e || buf[i] !== COMMA || !Number.isSafeInteger(time) || time <= this.lastTime) return false;
    const row = this.row;
    for (let field = 1; field <= 5; field++) {
      i++; // the comma
      let mantissa = 0;
      let digits = 0;
      let significant = 0;
      let scale = -1;
      for (; i < e; i++) {
        const c = buf[i] as number;
        if (c === COMMA) break;
        if (c === DOT) {
          if (scale !== -1 || digits === 0) return false;
          scale = 0;
          continue;
        }
        const d = c - ZERO;
        if (d < 0 || d > 9) return false;
        digits++;
        if (scale !== -1) scale++;
        if (significant > 0 || d !== 0) significant++;
        mantissa = mantissa * 10 + d;
      }
      if (digits === 0 || scale === 0 || significant > EXACT_DIGITS || scale >= POW10.length) return false;
      row[field] = scale === -1 ? mantissa : mantissa / (POW10[scale] as number);
      if (field < 5 && i === e) return false;
    }
    if (i !== e) return false;
    this.lastTime = time;
    this.columns.push(time, row[1] as number, row[2] as number, row[3] as number, row[4] as number, row[5] as number);
    return true;
  }

  private time(buf: Buffer, s: number, e: number): number {
    let t = 0;
    let ok = e > s;
    for (let i = s; i < e && ok; i++) {
      const d = (buf[i] as number) - ZERO;
      if (d < 0 || d > 9) ok = false;
      else t = t * 10 + d;
    }
    if (!ok || !Number.isSafeInteger(t)) {
      throw new InvalidDecimalError(`candle CSV line ${this.lineNo}: bad time "${buf.toString('utf8', s, e)}"`, { lineNo: this.lineNo });
    }
    return t;
  }

  /** `\d+(\.\d+)?` as a double: the digits as an integer over a power of ten (exact up to 15 significant digits, then one correctly rounded division). */
  private decimal(buf: Buffer, s: number, e: number, field: number): number {
    let mantissa = 0;
    let digits = 0;
    let significant = 0;
    let scale = -1;
    let ok = true;
    for (let i = s; i < e; i++) {
      const c = buf[i] as number;
      if (c === DOT) {
        if (scale !== -1 || digits === 0) ok = false;
        scale = 0;
        continue;
      }
      const d = c - ZERO;
      if (d < 0 || d > 9) { ok = false; break; }
      digits++;
      if (scale !== -1) scale++;
      if (significant > 0 || d !== 0) significant++;
      mantissa = mantissa * 10 + d;
    }
    if (!ok || digits === 0 || scale === 0) {
      const name = FIELDS[field] as string;
      throw new InvalidDecimalError(`candle CSV line ${this.lineNo}: ${name} "${buf.toString('utf8', s, e)}" is not a plain decimal`, { lineNo: this.lineNo, field: name });
    }
    const places = scale === -1 ? 0 : scale;
    if (significant <= EXACT_DIGITS && places < POW10.length) return mantissa / (POW10[places] as number);
    return this.wide(buf.toString('utf8', s, e), field);
  }

  /** More than 15 significant digits: accepted only when trailing zeros made them (the double still holds the value exactly). */
  private wide(text: string, field: number): number {
    const value = Number(text);
    if (!new Decimal(text).eq(new Decimal(String(value)))) {
      const name = FIELDS[field] as string;
      throw new InvalidDecimalError(`candle CSV line ${this.lineNo}: ${name} "${text}" has more than ${EXACT_DIGITS} significant digits, more than a backtest keeps exactly`, { lineNo: this.lineNo, field: name });
    }
    return value;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

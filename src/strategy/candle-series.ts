import type { Candle } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import { CLOSE, ColumnCandle, HIGH, LOW, OPEN, VOLUME } from '../candle-files/csv-columns';

/**
 * The bounded window of closed candles a strategy sees, oldest first. A ring buffer: pushing a
 * candle is O(1) and never copies the window (the host pushes once per closed candle, on the hot
 * path). Numeric columns (closes, highs, ...) are converted from Decimal lazily, only for the
 * columns a strategy actually reads, and each candle at most once per column.
 *
 * Indexing follows Array.prototype.at: 0 is the oldest candle, -1 the newest.
 */
export interface CandleSeries {
  /** Candles currently held (<= capacity). */
  readonly length: number;
  readonly capacity: number;
  /** Candle by index (0 = oldest, -1 = newest). Throws RangeError outside the window. */
  at(index: number): Candle;
  open(index: number): number;
  high(index: number): number;
  low(index: number): number;
  close(index: number): number;
  volume(index: number): number;
  /**
   * The whole column as a new number array, oldest first (what technicalindicators' `calculate`
   * wants). O(window) per call, cached until the next candle: prefer the incremental indicators
   * (`ctx.indicators.incremental`) on hot paths.
   */
  opens(): readonly number[];
  highs(): readonly number[];
  lows(): readonly number[];
  closes(): readonly number[];
  volumes(): readonly number[];
  /** A copy of the window as candles, oldest first. */
  toArray(): Candle[];
}


/** Exact powers of ten (1e0..1e22 are exact doubles). */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * Decimal -> float for indicators, several times faster than Decimal#toNumber (which formats a
 * string and parses it back). Reads decimal.js's internals (`d` base-1e7 digit words, `e` decimal
 * exponent, `s` sign; stable since decimal.js 4) and falls back to toNumber for anything unusual.
 * Exact for prices with up to 15 significant digits; otherwise within an ulp or two, which is fine
 * for signals (never for money).
 */
export function decimalToNumber(value: Decimal): number {
  const raw = value as unknown as { d: number[] | null | undefined; e: number; s: number };
  const words = raw.d;
  if (words === null || words === undefined || words.length === 0) return value.toNumber();
  const first = words[0] as number;
  const firstDigits = first >= 1e6 ? 7 : first >= 1e5 ? 6 : first >= 1e4 ? 5 : first >= 1e3 ? 4 : first >= 100 ? 3 : first >= 10 ? 2 : 1;
  let mantissa = first;
  let used = 1;
  if (words.length > 1) {
    mantissa = mantissa * 1e7 + (words[1] as number);
    used = 2;
    if (words.length > 2) {
      mantissa = mantissa * 1e7 + (words[2] as number);
      used = 3;
    }
  }
  const exp = raw.e - firstDigits + 1 - 7 * (used - 1);
  if (exp > 22 || exp < -22) return value.toNumber();
  const abs = exp >= 0 ? mantissa * (POW10[exp] as number) : mantissa / (POW10[-exp] as number);
  return raw.s < 0 ? -abs : abs;
}

function fieldOf(c: Candle, field: number): Decimal {
  switch (field) {
    case OPEN: return c.open;
    case HIGH: return c.high;
    case LOW: return c.low;
    case CLOSE: return c.close;
    default: return c.volume;
  }
}

/** The host's ring buffer behind CandleSeries. */
export class CandleRing implements CandleSeries {
  readonly capacity: number;
  private readonly candles: (Candle | undefined)[];
  /** Total candles ever pushed; slot of sequence n is n % capacity. */
  private pushed = 0;
  /** Slot of the newest candle ((pushed - 1) % capacity), kept so the hot reads need no division. */
  private head: number;
  /** Numeric columns indexed by OPEN..VOLUME (integer indexes keep the hot path monomorphic). */
  private readonly columns: Float64Array[];
  /** Per column: sequence number up to which values are converted. */
  private readonly converted: number[] = [0, 0, 0, 0, 0];
  /** Per column: the cached array of `xs()` and the sequence number it was built at. */
  private readonly arrays: (readonly number[])[] = [[], [], [], [], []];
  private readonly arraysAt: number[] = [-1, -1, -1, -1, -1];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`window capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.head = capacity - 1;
    this.candles = new Array<Candle | undefined>(capacity);
    this.columns = [0, 1, 2, 3, 4].map(() => new Float64Array(capacity));
  }

  get length(): number {
    return this.pushed < this.capacity ? this.pushed : this.capacity;
  }

  /** Total candles pushed since creation (not bounded by the capacity). */
  get total(): number {
    return this.pushed;
  }

  push(candle: Candle): void {
    const next = this.head + 1;
    this.head = next === this.capacity ? 0 : next;
    this.candles[this.head] = candle;
    this.pushed++;
  }

  at(index: number): Candle {
    return this.candles[this.slot(index)] as Candle;
  }

  // Small bodies on purpose: a strategy reads close(-1) on every candle, and only a call V8 inlines
  // into onCandle returns its float without boxing it.
  open(index: number): number { return this.value(OPEN, index); }
  high(index: number): number { return this.value(HIGH, index); }
  low(index: number): number { return this.value(LOW, index); }
  close(index: number): number { return this.value(CLOSE, index); }
  volume(index: number): number { return this.value(VOLUME, index); }

  opens(): readonly number[] { return this.column(OPEN); }
  highs(): readonly number[] { return this.column(HIGH); }
  lows(): readonly number[] { return this.column(LOW); }
  closes(): readonly number[] { return this.column(CLOSE); }
  volumes(): readonly number[] { return this.column(VOLUME); }

  toArray(): Candle[] {
    const out: Candle[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.at(i));
    return out;
  }

  private slot(index: number): number {
    const len = this.length;
    const i = index < 0 ? len + index : index;
    if (!(i >= 0 && i < len && Number.isInteger(i))) outside(index, len);
    const back = len - 1 - i;
    return back <= this.head ? this.head - back : this.head - back + this.capacity;
  }

  private value(field: number, index: number): number {
    const column = this.columns[field] as Float64Array;
    if (this.converted[field] !== this.pushed) this.convert(field);
    // The newest candle (index -1) is nearly every read: no bounds arithmetic beyond "not empty".
    if (index === -1 && this.pushed > 0) return column[this.head] as number;
    return column[this.slot(index)] as number;
  }

  /** Converts the candles pushed since the last read of this column (at most one window). */
  private convert(field: number): void {
    let from = this.converted[field] as number;
    if (this.pushed - from > this.capacity) from = this.pushed - this.capacity;
    const column = this.columns[field] as Float64Array;
    for (let seq = from; seq < this.pushed; seq++) {
      const slot = seq % this.capacity;
      const candle = this.candles[slot] as Candle;
      // A candle read from CSV columns holds the exact double already: no Decimal built to convert back.
      column[slot] = candle instanceof ColumnCandle ? candle.value(field) : decimalToNumber(fieldOf(candle, field));
    }
    this.converted[field] = this.pushed;
  }

  private column(field: number): readonly number[] {
    if (this.arraysAt[field] === this.pushed) return this.arrays[field] as readonly number[];
    if (this.converted[field] !== this.pushed) this.convert(field);
    const len = this.length;
    const start = this.pushed - len;
    const out = new Array<number>(len);
    const column = this.columns[field] as Float64Array;
    for (let i = 0; i < len; i++) out[i] = column[(start + i) % this.capacity] as number;
    this.arrays[field] = out;
    this.arraysAt[field] = this.pushed;
    return out;
  }
}

/** Kept out of slot() so its message template does not weigh on the hot path's inlining. */
function outside(index: number, len: number): never {
  throw new RangeError(`candle index ${index} outside the window of ${len}`);
}

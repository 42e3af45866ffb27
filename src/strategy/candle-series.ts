import type { Candle } from '../domain/candle';
import type { Decimal } from '../domain/decimal';

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

type Field = 'open' | 'high' | 'low' | 'close' | 'volume';

const POW10: number[] = [];
for (let i = 0; i <= 308; i++) POW10.push(Number(`1e${i}`));

/**
 * Decimal -> float for indicators, about 20x faster than Decimal#toNumber (which formats a string
 * and parses it back). Reads decimal.js's documented-by-source internals (`d` base-1e7 words,
 * `e` exponent, `s` sign) and falls back to toNumber for anything unusual. Exact for prices with up
 * to 15 significant digits; otherwise within an ulp, which is fine for signals (never for money).
 */
export function decimalToNumber(value: Decimal): number {
  const raw = value as unknown as { d?: number[] | null; e?: number; s?: number };
  const words = raw.d;
  const e = raw.e;
  const s = raw.s;
  if (!words || words.length === 0 || typeof e !== 'number' || typeof s !== 'number') return value.toNumber();
  const first = words[0] as number;
  let firstDigits = 1;
  while (firstDigits < 7 && first >= POW10[firstDigits]!) firstDigits++;
  let mantissa = first;
  const used = Math.min(words.length, 3);
  for (let i = 1; i < used; i++) mantissa = mantissa * 1e7 + (words[i] as number);
  const exp = e - (firstDigits - 1) - 7 * (used - 1);
  if (exp > 308 || exp < -308) return value.toNumber();
  const abs = exp >= 0 ? mantissa * POW10[exp]! : mantissa / POW10[-exp]!;
  return s < 0 ? -abs : abs;
}

/** The host's ring buffer behind CandleSeries. */
export class CandleRing implements CandleSeries {
  readonly capacity: number;
  private readonly candles: (Candle | undefined)[];
  /** Total candles ever pushed; slot of sequence n is n % capacity. */
  private pushed = 0;
  private readonly columns: Record<Field, Float64Array>;
  /** Per column: sequence number up to which values are converted. */
  private readonly converted: Record<Field, number> = { open: 0, high: 0, low: 0, close: 0, volume: 0 };
  /** Per column: the cached array of `xs()` and the sequence number it was built at. */
  private readonly arrays: Record<Field, readonly number[]> = { open: [], high: [], low: [], close: [], volume: [] };
  private readonly arraysAt: Record<Field, number> = { open: -1, high: -1, low: -1, close: -1, volume: -1 };

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`window capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.candles = new Array<Candle | undefined>(capacity);
    this.columns = {
      open: new Float64Array(capacity), high: new Float64Array(capacity), low: new Float64Array(capacity),
      close: new Float64Array(capacity), volume: new Float64Array(capacity),
    };
  }

  get length(): number {
    return this.pushed < this.capacity ? this.pushed : this.capacity;
  }

  /** Total candles pushed since creation (not bounded by the capacity). */
  get total(): number {
    return this.pushed;
  }

  push(candle: Candle): void {
    this.candles[this.pushed % this.capacity] = candle;
    this.pushed++;
  }

  at(index: number): Candle {
    return this.candles[this.slot(index)] as Candle;
  }

  open(index: number): number { return this.value('open', index); }
  high(index: number): number { return this.value('high', index); }
  low(index: number): number { return this.value('low', index); }
  close(index: number): number { return this.value('close', index); }
  volume(index: number): number { return this.value('volume', index); }

  opens(): readonly number[] { return this.column('open'); }
  highs(): readonly number[] { return this.column('high'); }
  lows(): readonly number[] { return this.column('low'); }
  closes(): readonly number[] { return this.column('close'); }
  volumes(): readonly number[] { return this.column('volume'); }

  toArray(): Candle[] {
    const out: Candle[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.at(i));
    return out;
  }

  private slot(index: number): number {
    const len = this.length;
    const i = index < 0 ? len + index : index;
    if (!Number.isInteger(i) || i < 0 || i >= len) throw new RangeError(`candle index ${index} outside the window of ${len}`);
    return (this.pushed - len + i) % this.capacity;
  }

  private value(field: Field, index: number): number {
    const slot = this.slot(index);
    this.convert(field);
    return this.columns[field][slot] as number;
  }

  /** Converts the candles pushed since the last read of this column (at most one window). */
  private convert(field: Field): void {
    let from = this.converted[field];
    if (from === this.pushed) return;
    if (this.pushed - from > this.capacity) from = this.pushed - this.capacity;
    const column = this.columns[field];
    for (let seq = from; seq < this.pushed; seq++) {
      const slot = seq % this.capacity;
      column[slot] = decimalToNumber((this.candles[slot] as Candle)[field]);
    }
    this.converted[field] = this.pushed;
  }

  private column(field: Field): readonly number[] {
    if (this.arraysAt[field] === this.pushed) return this.arrays[field];
    this.convert(field);
    const len = this.length;
    const start = this.pushed - len;
    const out = new Array<number>(len);
    const column = this.columns[field];
    for (let i = 0; i < len; i++) out[i] = column[(start + i) % this.capacity] as number;
    this.arrays[field] = out;
    this.arraysAt[field] = this.pushed;
    return out;
  }
}

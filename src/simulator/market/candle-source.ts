import type { CsvCandleRow } from '../../candle-files/csv-candles';

/**
 * Where a simulated market's 1-minute candles come from: a recorded CSV file (kept with its own
 * timestamps and gaps) or a seeded random walk. Rows keep their decimals as text; they are parsed
 * to Decimal only when used.
 */
export interface CandleSource {
  /** Open time of the first candle, or undefined when the source is empty. */
  firstTime(): number | undefined;
  /** 1m rows whose open time is in [from, to), ascending. */
  rowsBetween(from: number, to: number): readonly CsvCandleRow[];
}

export const MINUTE = 60;

/** A recorded series held in memory (a month of 1m candles is ~43k small rows). */
export class RowsCandleSource implements CandleSource {
  constructor(private readonly rows: readonly CsvCandleRow[]) {}

  firstTime(): number | undefined {
    return this.rows[0]?.time;
  }

  rowsBetween(from: number, to: number): readonly CsvCandleRow[] {
    return this.rows.slice(lowerBound(this.rows, from), lowerBound(this.rows, to));
  }
}

function lowerBound(rows: readonly CsvCandleRow[], time: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid]?.time ?? Infinity) < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A seeded random walk of contiguous 1m candles starting at `startTime` (aligned to the minute),
 * generated lazily as far as asked. The same seed and market always give the same candles.
 * Synthetic market data only: prices are rendered to `moneyPrec` decimals as text, like recorded data.
 */
export class RandomWalkSource implements CandleSource {
  private readonly rows: CsvCandleRow[] = [];
  private readonly random: () => number;
  private close: number;

  constructor(
    private readonly startTime: number,
    startPrice: number,
    seed: number,
    private readonly moneyPrec: number,
    /** Standard deviation of one minute's return. */
    private readonly volatility = 0.0012,
  ) {
    this.random = mulberry32(seed);
    this.close = startPrice;
  }

  firstTime(): number | undefined {
    return this.startTime;
  }

  rowsBetween(from: number, to: number): readonly CsvCandleRow[] {
    while (this.startTime + this.rows.length * MINUTE < to) this.rows.push(this.nextRow());
    const first = Math.max(0, Math.ceil((from - this.startTime) / MINUTE));
    const last = Math.max(0, Math.ceil((to - this.startTime) / MINUTE));
    return this.rows.slice(first, last);
  }

  private nextRow(): CsvCandleRow {
    const time = this.startTime + this.rows.length * MINUTE;
    const open = this.close;
    const close = open * (1 + this.gaussian() * this.volatility);
    const high = Math.max(open, close) * (1 + Math.abs(this.gaussian()) * this.volatility * 0.5);
    const low = Math.min(open, close) * (1 - Math.abs(this.gaussian()) * this.volatility * 0.5);
    const fmt = (v: number) => v.toFixed(this.moneyPrec);
    // Render first, then keep the rendered close so the next open matches it exactly.
    const row: CsvCandleRow = {
      time, open: fmt(open), high: fmt(high), low: fmt(low), close: fmt(close), volume: (0.5 + this.random() * 20).toFixed(6),
    };
    this.close = Number(row.close);
    return row;
  }

  private gaussian(): number {
    const u = Math.max(this.random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }
}

/** Small, fast, seedable PRNG (public-domain mulberry32); deterministic across platforms. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

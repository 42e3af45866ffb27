type TechnicalIndicators = typeof import('technicalindicators');

/**
 * Indicators for strategies. `ctx.indicators` is the technicalindicators package (batch
 * `SMA.calculate({ period, values })` and friends) plus `incremental`: small O(1)-per-candle
 * objects a strategy creates once (in `initState`) and feeds with `nextValue(x)` on every candle.
 * technicalindicators' own `nextValue` runs through generators (about 2M values/s per indicator),
 * too slow for a backtest of 1M candles/s; these are plain float arithmetic on typed arrays.
 *
 * Every `nextValue` returns `undefined` until the indicator has enough input (as technicalindicators
 * does). Floats are fine for signals; intents still carry Decimals.
 */
export interface IncrementalIndicator {
  nextValue(value: number): number | undefined;
  /** The last value returned (undefined while warming up). */
  readonly value: number | undefined;
}

/** Simple moving average over `period` values (running sum, re-summed now and then so float error cannot drift). */
export class Sma implements IncrementalIndicator {
  private readonly buf: Float64Array;
  private count = 0;
  private sum = 0;
  /**
   * The last average. Every number field here starts as a float and never holds `undefined`, so V8
   * keeps it unboxed: a field typed `number | undefined` boxes each new float (a 16-byte object per
   * call, per indicator, per candle, which was most of a backtest's per-candle garbage).
   */
  private last = Number.NaN;
  constructor(readonly period: number) {
    assertPeriod(period);
    this.buf = new Float64Array(period);
  }
  get value(): number | undefined {
    return this.count < this.period ? undefined : this.last;
  }
  nextValue(x: number): number | undefined {
    const slot = this.count % this.period;
    this.sum += x - (this.count >= this.period ? (this.buf[slot] as number) : 0);
    this.buf[slot] = x;
    this.count++;
    if (slot === this.period - 1 && this.count % (this.period * 1024) === 0) this.resum();
    if (this.count < this.period) return undefined;
    const v = this.sum / this.period;
    this.last = v;
    return v;
  }
  private resum(): void {
    let s = 0;
    for (let i = 0; i < this.period; i++) s += this.buf[i] as number;
    this.sum = s;
  }
}

/** Exponential moving average, seeded with the SMA of the first `period` values (as technicalindicators). */
export class Ema implements IncrementalIndicator {
  private readonly seed: Sma;
  private readonly k: number;
  /** Unboxed float state (see Sma); `seeded` says whether it holds a value yet. */
  private last = Number.NaN;
  private seeded = false;
  constructor(readonly period: number) {
    assertPeriod(period);
    this.seed = new Sma(period);
    this.k = 2 / (period + 1);
  }
  get value(): number | undefined {
    return this.seeded ? this.last : undefined;
  }
  nextValue(x: number): number | undefined {
    if (!this.seeded) {
      const first = this.seed.nextValue(x);
      if (first === undefined) return undefined;
      this.last = first;
      this.seeded = true;
      return first;
    }
    const v = (x - this.last) * this.k + this.last;
    this.last = v;
    return v;
  }
}

/** Wilder's RSI (0..100), seeded with the plain average of the first `period` gains and losses. */
export class Rsi implements IncrementalIndicator {
  /** Unboxed float state (see Sma): the previous input, valid once `hasPrev`. */
  private prev = Number.NaN;
  private hasPrev = false;
  private n = 0;
  private avgGain = 0;
  private avgLoss = 0;
  private last = Number.NaN;
  constructor(readonly period: number) {
    assertPeriod(period);
  }
  get value(): number | undefined {
    return this.n < this.period ? undefined : this.last;
  }
  nextValue(x: number): number | undefined {
    const prev = this.prev;
    const had = this.hasPrev;
    this.prev = x;
    this.hasPrev = true;
    if (!had) return undefined;
    const change = x - prev;
    const gain = change > 0 ? change : 0;
    const loss = change < 0 ? -change : 0;
    this.n++;
    const p = this.period;
    if (this.n < p) {
      this.avgGain += gain;
      this.avgLoss += loss;
      return undefined;
    }
    if (this.n === p) {
      this.avgGain = (this.avgGain + gain) / p;
      this.avgLoss = (this.avgLoss + loss) / p;
    } else {
      this.avgGain = (this.avgGain * (p - 1) + gain) / p;
      this.avgLoss = (this.avgLoss * (p - 1) + loss) / p;
    }
    const v = this.avgLoss === 0 ? 100 : this.avgGain === 0 ? 0 : 100 - 100 / (1 + this.avgGain / this.avgLoss);
    this.last = v;
    return v;
  }
}

/**
 * Highest (or lowest) of the last `period` values: a monotonic deque, amortised O(1) per value.
 * Used for Donchian channels.
 */
class RollingExtreme implements IncrementalIndicator {
  private readonly values: Float64Array;
  private readonly seqs: Float64Array;
  private head = 0;
  private tail = 0;
  private seq = 0;
  /** Unboxed (see Sma). */
  private last = Number.NaN;
  constructor(readonly period: number, private readonly wantMax: boolean) {
    assertPeriod(period);
    this.values = new Float64Array(period + 1);
    this.seqs = new Float64Array(period + 1);
  }
  get value(): number | undefined {
    return this.seq < this.period ? undefined : this.last;
  }
  nextValue(x: number): number | undefined {
    const cap = this.period + 1;
    // Drop values the new one dominates: they can never be the extreme again.
    while (this.tail !== this.head) {
      const lastIdx = (this.tail - 1 + cap) % cap;
      const v = this.values[lastIdx] as number;
      if (this.wantMax ? v <= x : v >= x) this.tail = lastIdx;
      else break;
    }
    this.values[this.tail] = x;
    this.seqs[this.tail] = this.seq;
    this.tail = (this.tail + 1) % cap;
    // Drop the front when it left the window.
    if ((this.seqs[this.head] as number) <= this.seq - this.period) this.head = (this.head + 1) % cap;
    this.seq++;
    if (this.seq < this.period) return undefined;
    const v = this.values[this.head] as number;
    this.last = v;
    return v;
  }
}
export class Highest extends RollingExtreme {
  constructor(period: number) {
    super(period, true);
  }
}
export class Lowest extends RollingExtreme {
  constructor(period: number) {
    super(period, false);
  }
}

/**
 * Crossing detector: 'up' when a moved above b since the last call, 'down' when below. Equality
 * keeps the previous side, so touching without crossing is not a cross.
 */
export class Cross {
  private side = 0;
  next(a: number | undefined, b: number | undefined): 'up' | 'down' | undefined {
    if (a === undefined || b === undefined) return undefined;
    const now = a > b ? 1 : a < b ? -1 : 0;
    if (now === 0) return undefined;
    const before = this.side;
    this.side = now;
    if (before < 0 && now > 0) return 'up';
    if (before > 0 && now < 0) return 'down';
    return undefined;
  }
}

function assertPeriod(period: number): void {
  if (!Number.isInteger(period) || period < 1) throw new RangeError(`indicator period must be a positive integer, got ${period}`);
}

export interface IncrementalIndicators {
  sma(period: number): Sma;
  ema(period: number): Ema;
  rsi(period: number): Rsi;
  highest(period: number): Highest;
  lowest(period: number): Lowest;
  cross(): Cross;
}

export const incremental: IncrementalIndicators = Object.freeze({
  sma: (period: number) => new Sma(period),
  ema: (period: number) => new Ema(period),
  rsi: (period: number) => new Rsi(period),
  highest: (period: number) => new Highest(period),
  lowest: (period: number) => new Lowest(period),
  cross: () => new Cross(),
});

export type Indicators = TechnicalIndicators & { readonly incremental: IncrementalIndicators };

let library: TechnicalIndicators | undefined;
const technicalindicators = (): TechnicalIndicators => (library ??= require('technicalindicators') as TechnicalIndicators);

/**
 * What the host puts in `ctx.indicators` (one shared object, read-only): `incremental` at once, the
 * technicalindicators package loaded on the first read of one of its names (most strategies use
 * `incremental` only, and loading the package is a tenth of a month's backtest). Reads, `in`, keys
 * and spreading see the package's exports as before; writes and deletes throw.
 */
export const indicators: Indicators = new Proxy({ incremental } as unknown as Indicators, {
  get: (target, key) => (key === 'incremental' ? target.incremental : Reflect.get(technicalindicators(), key)),
  has: (_target, key) => key === 'incremental' || key in technicalindicators(),
  ownKeys: () => ['incremental', ...Reflect.ownKeys(technicalindicators()).filter((k) => k !== 'incremental')],
  getOwnPropertyDescriptor: (target, key) => {
    if (key === 'incremental') return Reflect.getOwnPropertyDescriptor(target, key);
    const d = Reflect.getOwnPropertyDescriptor(technicalindicators(), key);
    return d === undefined ? undefined : { value: Reflect.get(technicalindicators(), key), writable: false, enumerable: d.enumerable ?? true, configurable: true };
  },
  set: () => false,
  defineProperty: () => false,
  deleteProperty: () => false,
  setPrototypeOf: () => false,
});

import { Decimal } from '../../domain/decimal';
import type { Candle } from '../../domain/candle';

/**
 * Plain data across the guest boundary. Decimals become `{ $d: '1.23' }` (structured clone would drop
 * their prototype); everything else must be plain data (objects, arrays, strings, numbers, booleans,
 * null, undefined). Functions, class instances other than Decimal, symbols are refused: nothing but
 * data crosses, so a guest never holds a handle on the daemon and the daemon never runs guest code.
 */
export type Wire = null | undefined | string | number | boolean | { readonly $d: string } | readonly Wire[] | { readonly [k: string]: Wire };

const MAX_DEPTH = 16;

export function toWire(value: unknown, depth = 0): Wire {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth > MAX_DEPTH) throw new TypeError('value nested too deeply to cross the strategy boundary');
  if (Decimal.isDecimal(value)) return { $d: (value as Decimal).toString() };
  if (Array.isArray(value)) return value.map((v) => toWire(v, depth + 1));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new TypeError(`a ${(value as object).constructor?.name ?? 'class'} instance cannot cross the strategy boundary`);
    const out: Record<string, Wire> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = toWire(v, depth + 1);
    return out;
  }
  throw new TypeError(`a ${typeof value} cannot cross the strategy boundary`);
}

/**
 * The inverse of toWire for data from either side. From a guest it is untrusted: the shape is
 * checked afterwards (validateIntents); here only `$d` strings become Decimals (an invalid number is
 * left a plain object, which validation refuses).
 */
export function fromWire(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => fromWire(v, depth + 1));
  const record = value as Record<string, unknown>;
  const d = record['$d'];
  if (typeof d === 'string' && Object.keys(record).length === 1) {
    try {
      return new Decimal(d);
    } catch {
      return value;
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = fromWire(v, depth + 1);
  return out;
}

/** A candle as seven strings (time first): the hot path's encoding, no per-field object walk. */
export type WireCandle = readonly [time: number, open: string, high: string, low: string, close: string, volume: string, volumeMoney: string];

export function candleToWire(c: Candle): WireCandle {
  return [c.time, c.open.toString(), c.high.toString(), c.low.toString(), c.close.toString(), c.volume.toString(), c.volumeMoney.toString()];
}

/** Guest side only: candles come from the daemon (trusted), so no shape check beyond Decimal's own. */
export function candleFromWire(w: WireCandle): Candle {
  return { time: w[0], open: new Decimal(w[1]), high: new Decimal(w[2]), low: new Decimal(w[3]), close: new Decimal(w[4]), volume: new Decimal(w[5]), volumeMoney: new Decimal(w[6]) };
}

/** An error's context as flat plain data (strings, numbers, booleans): what may cross from a guest. */
export function plainContext(context: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (context === null || typeof context !== 'object') return out;
  for (const [k, v] of Object.entries(context)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  return out;
}

import type { Decimal } from './decimal';

interface DecimalParts {
  readonly d: readonly number[] | null;
  readonly e: number;
  readonly s: number;
}

/**
 * `a.comparedTo(b)` without its allocations. decimal.js's `cmp` first copies its argument into a
 * new Decimal (digits array included), so every `lessThan` / `greaterThanOrEqualTo` allocates two
 * objects; the engine, the executor's checks and the backtest compare prices per order, and that garbage was a
 * large part of a backtest's time. This reads the same internals decimal.js compares (sign `s`,
 * exponent `e`, base-1e7 digit words `d`, normalised: no leading or trailing zero words) and hands
 * anything unusual (zero, infinities, NaN) to decimal.js itself. Exact: same answer as `cmp`.
 */
export function compareDecimals(a: Decimal, b: Decimal): number {
  const x = a as unknown as DecimalParts;
  const y = b as unknown as DecimalParts;
  const xd = x.d;
  const yd = y.d;
  if (xd === null || yd === null || xd[0] === 0 || yd[0] === 0 || xd[0] === undefined || yd[0] === undefined) return a.comparedTo(b);
  const xs = x.s;
  if (xs !== y.s) return xs;
  if (x.e !== y.e) return (x.e > y.e) !== (xs < 0) ? 1 : -1;
  const n = xd.length < yd.length ? xd.length : yd.length;
  for (let i = 0; i < n; i++) {
    const xw = xd[i] as number;
    const yw = yd[i] as number;
    if (xw !== yw) return (xw > yw) !== (xs < 0) ? 1 : -1;
  }
  if (xd.length === yd.length) return 0;
  return (xd.length > yd.length) !== (xs < 0) ? 1 : -1;
}

/** a <= b, exactly, without allocating. */
export function decimalAtMost(a: Decimal, b: Decimal): boolean {
  return compareDecimals(a, b) <= 0;
}

/** a >= b, exactly, without allocating. */
export function decimalAtLeast(a: Decimal, b: Decimal): boolean {
  return compareDecimals(a, b) >= 0;
}

let lastA: Decimal | undefined;
let lastB: Decimal | undefined;
let lastProduct: Decimal | undefined;

/**
 * `a.times(b)`, remembering the last product by operand identity. One order's `amount x price` is
 * needed by the executor's size and funds checks and again by the simulator's total check and
 * freeze; Decimals are immutable, so the same two instances always give the same product.
 */
export function productOf(a: Decimal, b: Decimal): Decimal {
  if (a === lastA && b === lastB && lastProduct !== undefined) return lastProduct;
  const product = a.times(b);
  lastA = a;
  lastB = b;
  lastProduct = product;
  return product;
}

import type { Candle } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';

/**
 * The assumed price path inside one candle (see FILL-MODEL.md): from the previous price to the open
 * (a gap, usually zero length), then the extreme NEARER to the open, then the other extreme, then
 * the close. When both extremes are equally far the low comes first (the pessimistic choice for the
 * long positions the daemon protects: their stop-loss is reached before their take-profit).
 *
 * Consecutive equal points are dropped, so every segment really moves.
 */
export function candlePath(candle: Pick<Candle, 'open' | 'high' | 'low' | 'close'>, previous: Decimal | undefined): Decimal[] {
  const { open, high, low, close } = candle;
  const lowFirst = compareDecimals(open.minus(low), high.minus(open)) <= 0;
  const points = [previous ?? open, open, lowFirst ? low : high, lowFirst ? high : low, close];
  const path: Decimal[] = [];
  for (const p of points) {
    const last = path[path.length - 1];
    if (last === undefined || compareDecimals(last, p) !== 0) path.push(p);
  }
  return path;
}

/**
 * The price at fraction `f` (0..1) of the way along the path of a candle, by path length: used to
 * show the still-open candle's partial values while the market clock is inside it.
 * Returns the partial high, low and current price.
 */
export function partialAlongPath(
  candle: Pick<Candle, 'open' | 'high' | 'low' | 'close'>,
  f: number,
): { high: Decimal; low: Decimal; price: Decimal } {
  const path = candlePath(candle, undefined);
  const first = path[0] ?? candle.open;
  if (path.length === 1 || f <= 0) return { high: first, low: first, price: first };
  const lengths = path.slice(1).map((p, i) => p.minus(path[i] ?? p).abs());
  const total = lengths.reduce((a, b) => a.plus(b));
  let remaining = total.times(Math.min(f, 1));
  let high = first;
  let low = first;
  let price = first;
  for (let i = 0; i < lengths.length; i++) {
    const from = path[i] ?? first;
    const to = path[i + 1] ?? first;
    const len = lengths[i] ?? remaining;
    if (remaining.greaterThanOrEqualTo(len)) {
      price = to;
      remaining = remaining.minus(len);
    } else {
      price = to.greaterThan(from) ? from.plus(remaining) : from.minus(remaining);
      remaining = remaining.minus(remaining);
    }
    if (price.greaterThan(high)) high = price;
    if (price.lessThan(low)) low = price;
    if (remaining.isZero()) break;
  }
  return { high, low, price };
}

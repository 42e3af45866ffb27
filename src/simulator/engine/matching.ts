import type { Decimal } from '../../domain/decimal';
import { compareDecimals, decimalAtLeast, decimalAtMost } from '../../domain/decimal-compare';
import type { SimOrder } from './types';

/**
 * Matching rules of the fill model (FILL-MODEL.md), as pure functions over orders and prices.
 *
 * Invariant kept by the engine: no waiting stop has its condition met, and no resting order is
 * marketable against the price the path has reached, except the rest of an order whose fills ran out
 * of the candle's volume (it fills at the next candle's open, see crossedAtOpen). So while the price moves from `current` to
 * `target`, the only things that can happen are, in the order the price reaches their level:
 * - moving up: a resting SELL limit at or below the new price fills (maker, at its price);
 *              a waiting BUY stop (gte) at or below the new price triggers;
 * - moving down: a resting BUY limit at or above the new price fills; a waiting SELL stop (lte) triggers.
 */
export interface PathEvent {
  readonly order: SimOrder;
  readonly kind: 'fill' | 'trigger';
  /** The price at which it happens: the limit price (fill) or the activation price (trigger). */
  readonly level: Decimal;
}

/**
 * The first event on the way from `current` to `target`; ties go to the older order (lower id).
 * Every candidate lies between `current` and `target`, so the nearest is the lowest level on the
 * way up and the highest on the way down. With `fillsAllowed` false (the candle's volume is used up)
 * only triggers are looked for. Comparisons do not allocate (decimal-compare.ts): this runs for
 * every segment of every candle that reaches an order.
 */
export function nextPathEvent(orders: Iterable<SimOrder>, current: Decimal, target: Decimal, fillsAllowed = true): PathEvent | undefined {
  const direction = compareDecimals(target, current);
  if (direction === 0 || Number.isNaN(direction)) return undefined;
  const up = direction > 0;
  let best: SimOrder | undefined;
  let bestLevel: Decimal | undefined;
  let bestKind: PathEvent['kind'] = 'fill';
  for (const order of orders) {
    if (order.status !== 'OPEN') continue;
    let kind: PathEvent['kind'];
    let level: Decimal;
    if (order.activated) {
      if (!fillsAllowed || order.side !== (up ? 'sell' : 'buy')) continue;
      kind = 'fill';
      level = order.price;
    } else {
      if (order.activationCondition !== (up ? 'gte' : 'lte') || order.activationPrice === undefined) continue;
      kind = 'trigger';
      level = order.activationPrice;
    }
    // In range: current <= level <= target on the way up, target <= level <= current on the way down.
    const fromCurrent = compareDecimals(level, current);
    const toTarget = compareDecimals(level, target);
    if (up ? fromCurrent < 0 || toTarget > 0 : fromCurrent > 0 || toTarget < 0) continue;
    const vsBest = bestLevel === undefined ? -1 : compareDecimals(level, bestLevel) * (up ? 1 : -1);
    if (vsBest < 0 || (vsBest === 0 && best !== undefined && order.id < best.id)) {
      best = order;
      bestLevel = level;
      bestKind = kind;
    }
  }
  return best === undefined || bestLevel === undefined ? undefined : { order: best, kind: bestKind, level: bestLevel };
}

/**
 * The oldest order that the price jump to a candle's `open` has crossed (FILL-MODEL.md, "Gaps"): a
 * waiting stop whose condition holds at the open (kind `trigger`), or a resting limit that is
 * marketable at the open (kind `fill`, only while `fillsAllowed`): one the jump passed, or the rest
 * of one whose earlier fills ran out of volume. Both act at the open, the first price that traded
 * beyond them. The event's `level` is the open.
 */
export function crossedAtOpen(orders: Iterable<SimOrder>, open: Decimal, fillsAllowed: boolean): PathEvent | undefined {
  for (const order of orders) {
    if (order.status !== 'OPEN') continue;
    if (order.activated) {
      if (fillsAllowed && isMarketable(order.side, order.price, open)) return { order, kind: 'fill', level: open };
    } else if (order.activationCondition !== undefined && order.activationPrice !== undefined
      && conditionHolds(order.activationCondition, order.activationPrice, open)) {
      return { order, kind: 'trigger', level: open };
    }
  }
  return undefined;
}

/** Whether a limit order would trade at once against `lastPrice` (buy at or above it, sell at or below). */
export function isMarketable(side: 'buy' | 'sell', price: Decimal, lastPrice: Decimal): boolean {
  return side === 'buy' ? decimalAtLeast(price, lastPrice) : decimalAtMost(price, lastPrice);
}

/** Whether a stop's activation condition holds at `price`. */
export function conditionHolds(condition: 'lte' | 'gte', activationPrice: Decimal, price: Decimal): boolean {
  return condition === 'gte' ? decimalAtLeast(price, activationPrice) : decimalAtMost(price, activationPrice);
}

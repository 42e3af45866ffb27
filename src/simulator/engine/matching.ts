import type { Decimal } from '../../domain/decimal';
import type { SimOrder } from './types';

/**
 * Matching rules of the fill model (FILL-MODEL.md), as pure functions over orders and prices.
 *
 * Invariant kept by the engine: no resting order is marketable against the price the path has
 * reached, and no waiting stop has its condition met. So while the price moves from `current` to
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

/** The first event on the way from `current` to `target`; ties go to the older order (lower id). */
export function nextPathEvent(orders: Iterable<SimOrder>, current: Decimal, target: Decimal): PathEvent | undefined {
  const up = target.greaterThan(current);
  if (!up && !target.lessThan(current)) return undefined;
  let best: PathEvent | undefined;
  let bestDistance: Decimal | undefined;
  for (const order of orders) {
    if (order.status !== 'OPEN') continue;
    let kind: PathEvent['kind'];
    let level: Decimal;
    if (order.activated) {
      if (order.side !== (up ? 'sell' : 'buy')) continue;
      kind = 'fill';
      level = order.price;
    } else {
      if (order.activationCondition !== (up ? 'gte' : 'lte') || order.activationPrice === undefined) continue;
      kind = 'trigger';
      level = order.activationPrice;
    }
    const inRange = up ? level.lessThanOrEqualTo(target) && level.greaterThanOrEqualTo(current)
      : level.greaterThanOrEqualTo(target) && level.lessThanOrEqualTo(current);
    if (!inRange) continue;
    const distance = level.minus(current).abs();
    if (bestDistance === undefined || distance.lessThan(bestDistance) || (distance.equals(bestDistance) && best !== undefined && order.id < best.order.id)) {
      best = { order, kind, level };
      bestDistance = distance;
    }
  }
  return best;
}

/** Whether a limit order would trade at once against `lastPrice` (buy at or above it, sell at or below). */
export function isMarketable(side: 'buy' | 'sell', price: Decimal, lastPrice: Decimal): boolean {
  return side === 'buy' ? price.greaterThanOrEqualTo(lastPrice) : price.lessThanOrEqualTo(lastPrice);
}

/** Whether a stop's activation condition holds at `price`. */
export function conditionHolds(condition: 'lte' | 'gte', activationPrice: Decimal, price: Decimal): boolean {
  return condition === 'gte' ? price.greaterThanOrEqualTo(activationPrice) : price.lessThanOrEqualTo(activationPrice);
}

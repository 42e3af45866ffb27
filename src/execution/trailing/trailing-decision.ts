import { Decimal } from '../../domain/decimal';
import type { OrderSide } from '../../domain/order';

/**
 * The trailing stop's arithmetic, pure: where a new stop starts, where the best price and the trigger
 * go on a closed candle, and whether that is a move. The manager (trailing-stops.ts) does the I/O.
 *
 * A sell stop protects a long: the best price is the highest high, the trigger sits `trail` below it,
 * the limit `limitOffset` below the trigger. A buy stop protects a short: the lowest low, `trail` above.
 */
export interface TrailSpec {
  readonly side: OrderSide;
  readonly trail: Decimal;
  readonly step: Decimal;
  readonly limitOffset: Decimal;
}

/** Rounds a trigger to the market's precision (away from the market for the side), as the executor will. */
export type RoundTrigger = (trigger: Decimal) => Decimal;

export interface StopPlacement {
  readonly trigger: Decimal;
  readonly price: Decimal;
}

const ZERO = new Decimal(0);

/** The limit price of a stop whose trigger is `trigger`: below it for a sell, above it for a buy. */
export function limitPriceOf(spec: Pick<TrailSpec, 'side' | 'limitOffset'>, trigger: Decimal): Decimal {
  return spec.side === 'sell' ? trigger.minus(spec.limitOffset) : trigger.plus(spec.limitOffset);
}

/** The trigger `trail` away from the best price, rounded; undefined when that is not a price (a sell trail above the price). */
export function triggerFor(spec: TrailSpec, best: Decimal, round: RoundTrigger): Decimal | undefined {
  const raw = spec.side === 'sell' ? best.minus(spec.trail) : best.plus(spec.trail);
  if (raw.lessThanOrEqualTo(ZERO)) return undefined;
  const trigger = round(raw);
  const price = limitPriceOf(spec, trigger);
  return trigger.greaterThan(ZERO) && price.greaterThan(ZERO) ? trigger : undefined;
}

/** The first leg, from the close of the candle the intent came from (the best price so far). */
export function initialStop(spec: TrailSpec, close: Decimal, round: RoundTrigger): StopPlacement | undefined {
  const trigger = triggerFor(spec, close, round);
  return trigger === undefined ? undefined : { trigger, price: limitPriceOf(spec, trigger) };
}

/** The best price after a candle: the highest high for a sell stop, the lowest low for a buy stop. */
export function bestAfter(side: OrderSide, best: Decimal, candle: { readonly high: Decimal; readonly low: Decimal }): Decimal {
  return side === 'sell' ? Decimal.max(best, candle.high) : Decimal.min(best, candle.low);
}

export interface TrailDecision {
  readonly best: Decimal;
  /** The new leg, when the trigger moves by at least `step` in the protective direction. */
  readonly move?: StopPlacement | undefined;
}

/**
 * One closed candle: the new best price, and a move when the trigger it implies beats the resting
 * one by `step` or more (up for a sell, down for a buy). A trigger never moves against the position.
 */
export function decideTrail(spec: TrailSpec, state: { readonly best: Decimal; readonly trigger: Decimal }, candle: { readonly high: Decimal; readonly low: Decimal }, round: RoundTrigger): TrailDecision {
  const best = bestAfter(spec.side, state.best, candle);
  const trigger = triggerFor(spec, best, round);
  if (trigger === undefined) return { best };
  const gain = spec.side === 'sell' ? trigger.minus(state.trigger) : state.trigger.minus(trigger);
  if (gain.lessThan(spec.step) || !gain.greaterThan(ZERO)) return { best };
  return { best, move: { trigger, price: limitPriceOf(spec, trigger) } };
}

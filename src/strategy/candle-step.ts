import type { Candle, Interval } from '../domain/candle';
import type { MarketName } from '../domain/market';
import type { StampedIntent } from './intent-validation';

/** A closed candle on its way to the strategies. */
export interface StepCandle {
  readonly market: MarketName;
  readonly interval: Interval;
  readonly candle: Candle;
  /** History only (a warm-up, or before a backtest's first traded candle): not settled, nothing traded. */
  readonly warm: boolean;
}

/** What a run plugs into the step: the daemon's guests and executor, or a backtest's host and kernel. */
export interface CandleStepParts<C extends StepCandle> {
  /** Brings the journal, open orders, feedback and balances of the market up to date; undefined when there is nothing to do. */
  settle(c: C): Promise<void> | undefined;
  /** The candle is settled (not for warm-up candles): the kernel's per-candle marks (the guardrails' equity and time). */
  settled?(c: C): void;
  /** Moves the trailing stops of the candle's market on the settled view (execution/trailing/); undefined when none moved. */
  trail?(c: C): Promise<void> | undefined;
  /** The strategies' intents on the candle. */
  decide(c: C): readonly StampedIntent[] | Promise<readonly StampedIntent[]>;
  /** True when the intents may not trade after all (a stale candle): the part has dropped them. */
  refuse?(c: C, intents: readonly StampedIntent[]): boolean;
  submit(intents: readonly StampedIntent[]): Promise<void>;
}

/**
 * THE per-candle step of every run (live, paper, backtest): settle what the exchange did since the last
 * candle, move the trailing stops on that settled view, let the strategies decide on it, submit what
 * they may trade. Synchronous where nothing waits (undefined), so a backtest pays no trip through the
 * microtask queue per candle.
 */
export function candleStep<C extends StepCandle>(parts: CandleStepParts<C>, c: C): Promise<void> | undefined {
  if (c.warm) return decideAndSubmit(parts, c);
  const settling = parts.settle(c);
  return settling === undefined ? markTrailDecide(parts, c) : settling.then(() => markTrailDecide(parts, c));
}

/** On the settled view: the kernel's marks, the trailing stops' moves, then the strategies. */
function markTrailDecide<C extends StepCandle>(parts: CandleStepParts<C>, c: C): Promise<void> | undefined {
  parts.settled?.(c);
  const trailing = parts.trail?.(c);
  return trailing === undefined ? decideAndSubmit(parts, c) : trailing.then(() => decideAndSubmit(parts, c));
}

function decideAndSubmit<C extends StepCandle>(parts: CandleStepParts<C>, c: C): Promise<void> | undefined {
  const decided = parts.decide(c);
  return decided instanceof Promise ? decided.then((intents) => submitTradable(parts, c, intents)) : submitTradable(parts, c, decided);
}

function submitTradable<C extends StepCandle>(parts: CandleStepParts<C>, c: C, intents: readonly StampedIntent[]): Promise<void> | undefined {
  if (intents.length === 0 || c.warm || parts.refuse?.(c, intents) === true) return undefined;
  return parts.submit(intents);
}

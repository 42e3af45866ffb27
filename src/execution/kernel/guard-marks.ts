import { intervalSeconds } from '../../domain/candle';
import type { Guardrails } from '../../risk/guardrails/guardrails';
import type { StepCandle } from '../../strategy/candle-step';

/**
 * The guardrails' mark of a settled candle, at its close time (never the clock's now, which differs
 * between the daemon and a backtest by the poll delay): one function for both.
 */
export function markSettledCandle(guards: Guardrails | undefined, c: StepCandle): void {
  guards?.mark(c.market, c.candle.close, (c.candle.time + intervalSeconds(c.interval)) * 1000);
}

import type { GuardLatch, ReleaseCause } from '../../risk/guardrails/guard-latch';
import type { GuardObserver } from '../../risk/guardrails/guardrails';

/** A guardrail that tripped or lifted during a backtest (the report's "Guardrails" section). */
export interface GuardEvent {
  readonly type: 'tripped' | 'lifted';
  /** Market time (Unix s): when it tripped, or when it lifted. */
  readonly time: number;
  readonly guard: GuardLatch['guard'];
  readonly scope: string;
  readonly action: GuardLatch['action'];
  readonly reason: string;
  /** lifted: by its window (an operator never acts in a backtest). */
  readonly by?: ReleaseCause | undefined;
}

/** The observer that writes a run's guard events into `into`. */
export function guardEventLog(into: GuardEvent[]): GuardObserver {
  const event = (type: GuardEvent['type'], l: GuardLatch, timeMs: number, by?: ReleaseCause): GuardEvent => ({
    type, time: Math.floor(timeMs / 1000), guard: l.guard, scope: l.scope, action: l.action, reason: l.reason, ...(by === undefined ? {} : { by }),
  });
  return {
    tripped: (l) => into.push(event('tripped', l, l.sinceMs)),
    released: (l, by) => into.push(event('lifted', l, l.untilMs ?? l.sinceMs, by)),
  };
}

import { Decimal } from '../../domain/decimal';
import type { GuardName } from '../../risk/guardrails/guard-latch';
import type { GuardEvent } from './guard-events';
import type { OrderLogEntry } from './order-log';

const GUARD_RULES: ReadonlySet<string> = new Set<GuardName>(['account_drawdown', 'strategy_drawdown', 'cooldown', 'strategy_budget']);

/** What one guardrail kept from the exchange during a run. */
export interface GuardPrevented {
  readonly rule: GuardName;
  /** Intents it denied. */
  readonly intents: number;
  /** Their money value (amount x limit price, quote currency), as strings. */
  readonly notional: string;
  /** The first candle close (Unix s) it denied one at. */
  readonly firstTime: number;
}

/** The report's "Guardrails" section: when each tripped and lifted, and what it prevented. */
export interface GuardSummary {
  readonly events: readonly GuardEvent[];
  readonly prevented: readonly GuardPrevented[];
}

export function summariseGuards(events: readonly GuardEvent[], orders: readonly OrderLogEntry[]): GuardSummary {
  const byRule = new Map<string, { intents: number; notional: Decimal; firstTime: number }>();
  for (const o of orders) {
    if (o.outcome !== 'denied' || o.rule === undefined || !GUARD_RULES.has(o.rule)) continue;
    const g = byRule.get(o.rule) ?? { intents: 0, notional: new Decimal(0), firstTime: o.time };
    g.intents++;
    if (o.amount !== undefined && o.price !== undefined) g.notional = g.notional.plus(o.amount.times(o.price));
    byRule.set(o.rule, g);
  }
  const prevented = [...byRule].map(([rule, g]) => ({ rule: rule as GuardName, intents: g.intents, notional: g.notional.toString(), firstTime: g.firstTime }));
  return { events, prevented };
}

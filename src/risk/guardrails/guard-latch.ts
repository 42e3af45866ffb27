/** The guardrails' rule names: a denial carries one (RiskRule), as do the metrics and the drift causes. */
export type GuardName = 'account_drawdown' | 'strategy_drawdown' | 'cooldown' | 'strategy_budget';

/** A guard that acted and stays in force: what stops, since when, until when, and why. */
export interface GuardLatch {
  readonly guard: Exclude<GuardName, 'strategy_budget'>;
  /** 'account', a strategy's name, or `strategy|market` for a cooldown per market. */
  readonly scope: string;
  readonly strategy?: string | undefined;
  readonly market?: string | undefined;
  /** 'halt': every order but cancels is denied; 'reduce': entries are. */
  readonly action: 'halt' | 'reduce';
  /** Which rule of its list tripped (0-based), so one rule latches once. */
  readonly rule: number;
  /** Market time (ms) it tripped. */
  readonly sinceMs: number;
  /** Market time (ms) it lifts by itself; absent: an operator lifts it. */
  readonly untilMs?: number | undefined;
  readonly reason: string;
}

/** Who lifted a latch. */
export type ReleaseCause = 'window' | 'operator';

export function latchKey(l: Pick<GuardLatch, 'guard' | 'scope' | 'rule'>): string {
  return `${l.guard}:${l.scope}:${l.rule}`;
}

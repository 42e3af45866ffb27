import type { Decimal } from '../../domain/decimal';

/**
 * The guardrails as data (config `risk.guardrails`, docs/risk.md). Money values are in the accounts'
 * common money (quote) currency, as the daily loss limit; times in ms of market time.
 */

/** A drawdown stop: equity (realised + marked-to-market PnL) fell `max` below its peak. */
export interface DrawdownRule {
  readonly max: Decimal;
  /** The peak is the highest equity within this window; absent: the all-time peak. */
  readonly windowMs?: number | undefined;
  /** 'window': the stop lifts `windowMs` after it tripped; 'operator': only an operator lifts it. */
  readonly release: 'operator' | 'window';
}

/** The account's drawdown stop also says what stops: entries (reduce) or every order but cancels (halt). */
export interface AccountDrawdownRule extends DrawdownRule {
  readonly action: 'halt' | 'reduce';
}

/** After `losses` losing round trips within `windowMs`, no new entries for `pauseMs`. */
export interface CooldownRule {
  readonly losses: number;
  readonly windowMs: number;
  readonly pauseMs: number;
  /** 'strategy': losses anywhere pause the strategy's entries everywhere; 'market': per market. */
  readonly scope: 'strategy' | 'market';
}

/** The money one strategy may commit: a share of the account's capital, or a fixed amount. */
export type StrategyBudget = { readonly share: Decimal; readonly amount?: undefined } | { readonly amount: Decimal; readonly share?: undefined };

export interface StrategyGuards {
  readonly drawdown: readonly DrawdownRule[];
  readonly cooldown: readonly CooldownRule[];
  readonly budget?: StrategyBudget | undefined;
}

export interface GuardrailSettings {
  readonly account: { readonly drawdown: readonly AccountDrawdownRule[] };
  /** Every strategy's guards, unless `strategies` names it (its entry replaces these field by field). */
  readonly strategyDefaults: StrategyGuards;
  readonly strategies: Readonly<Record<string, Partial<StrategyGuards>>>;
}

export const NO_GUARDRAILS: GuardrailSettings = Object.freeze({
  account: { drawdown: [] },
  strategyDefaults: { drawdown: [], cooldown: [] },
  strategies: {},
});

/** One strategy's guards: its own entry on top of the defaults, field by field. */
export function guardsFor(settings: GuardrailSettings, strategy: string): StrategyGuards {
  const own = settings.strategies[strategy];
  if (own === undefined) return settings.strategyDefaults;
  return {
    drawdown: own.drawdown ?? settings.strategyDefaults.drawdown,
    cooldown: own.cooldown ?? settings.strategyDefaults.cooldown,
    budget: own.budget ?? settings.strategyDefaults.budget,
  };
}

/** True when nothing is configured: the kernel then tracks nothing (a backtest pays nothing for it). */
export function guardrailsOff(s: GuardrailSettings): boolean {
  const none = (g: Partial<StrategyGuards>): boolean => (g.drawdown?.length ?? 0) === 0 && (g.cooldown?.length ?? 0) === 0 && g.budget === undefined;
  return s.account.drawdown.length === 0 && none(s.strategyDefaults) && Object.values(s.strategies).every(none);
}

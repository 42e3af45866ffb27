import type { Intent } from '../domain/intent';
import { RiskDeniedError } from '../domain/errors';
import { Decimal } from '../domain/decimal';
import {
  checkBalance, checkMarketMinimums, checkMarketNotional, checkOpenOrders, checkOrderNotional, checkPriceBand, deny,
  type RiskCheck, type RiskContext, type RiskDecision, type RiskDenial,
} from './risk-checks';
import { limitsFor, type RiskLimits } from './risk-limits';
import type { Guardrails } from './guardrails/guardrails';
import { isExit, TradingStateHolder, type TradingState } from '../trading-state/trading-state';

/** Where the daily loss limit reads today's realised PnL: the portfolio (src/portfolio/portfolio.ts). */
export interface RealizedToday {
  realizedToday(): Decimal;
}

export interface RiskEngineOptions {
  readonly limits: RiskLimits;
  /** Today's realised PnL (the portfolio); default none: the daily loss limit never trips. */
  readonly pnl?: RealizedToday | undefined;
  readonly initialState?: TradingState | undefined;
  /** Drawdown stops, cooldowns and budgets (docs/risk.md); default none. */
  readonly guards?: Guardrails | undefined;
  /** Observes trading-state transitions (metrics, logs). */
  readonly onStateChange?: ((next: TradingState, previous: TradingState, reason: string) => void) | undefined;
}

const ALLOWED: RiskDecision = Object.freeze({ allowed: true });
const NO_PNL: RealizedToday = { realizedToday: () => new Decimal(0) };

/** Order of the per-order checks: cheap and most telling first. */
const ORDER_CHECKS: readonly RiskCheck[] = [
  checkPriceBand, checkMarketMinimums, checkOrderNotional, checkMarketNotional, checkOpenOrders, checkBalance,
];

/**
 * Pre-trade risk in front of the executor. Pure logic: no I/O, time from the injected clock.
 *
 * check() order: cancels always pass (they only reduce risk); then the trading state (halted:
 * nothing else; reducing: exits only); then the daily loss limit (entries only); then the guardrails
 * (drawdown stops, cooldowns, budgets: risk/guardrails/); then the named per-order checks. The first failing rule is returned; the executor emits OrderDenied with it.
 */
export class RiskEngine {
  private limits: RiskLimits;
  private readonly state: TradingStateHolder;
  private readonly pnl: RealizedToday;
  readonly guards: Guardrails | undefined;

  constructor(opts: RiskEngineOptions) {
    this.limits = opts.limits;
    this.state = new TradingStateHolder(opts.initialState ?? 'active', opts.onStateChange);
    this.pnl = opts.pnl ?? NO_PNL;
    this.guards = opts.guards;
  }

  check(intent: Intent, ctx: RiskContext): RiskDecision {
    if (intent.kind === 'cancel') return ALLOWED;
    // Never reaches here: a trailing stop is checked as the stop-limit legs it places (execution/trailing/).
    if (intent.kind === 'trailing_stop') throw new TypeError('a trailing stop is checked as the stop-limits it places, never whole');
    const byState = this.checkTradingState(intent);
    if (!byState.allowed) return byState;
    const exit = isExit(intent);
    if (!exit && this.dailyLossLimitReached()) {
      return deny('daily_loss_limit', `realised loss today ${this.pnl.realizedToday().negated()} reached the daily limit ${this.limits.dailyLossLimit}: no new entries until 00:00 UTC`);
    }
    const guarded = this.checkGuards(intent, ctx);
    if (guarded !== undefined) return guarded;
    const limits = limitsFor(this.limits, intent.market);
    for (const check of ORDER_CHECKS) {
      const denial = check(intent, ctx, limits);
      if (denial !== undefined) return denial;
    }
    return ALLOWED;
  }

  private checkGuards(intent: Intent, ctx: RiskContext): RiskDenial | undefined {
    const guards = this.guards;
    if (guards === undefined || ctx.decisionMs === undefined) return undefined;
    return guards.check(intent, {
      strategy: ctx.strategy, decisionMs: ctx.decisionMs, balances: ctx.balances,
      strategyOpenOrders: ctx.strategyOpenOrders ?? (() => ctx.openOrders),
      money: ctx.marketInfo?.money ?? (intent.market.split('_')[1] as string),
    });
  }

  /**
   * The rules that do not count our own orders and balances (trading state, daily loss, guardrails,
   * price band, the venue's minimums): what a trailing stop's next leg is asked before the move cancels
   * the resting one, which the count, notional and balance checks would still see.
   */
  checkStanding(intent: Intent, ctx: RiskContext): RiskDecision {
    if (intent.kind === 'cancel') return ALLOWED;
    if (intent.kind === 'trailing_stop') throw new TypeError('a trailing stop is checked as the stop-limits it places, never whole');
    const byState = this.checkTradingState(intent);
    if (!byState.allowed) return byState;
    if (!isExit(intent) && this.dailyLossLimitReached()) return deny('daily_loss_limit', `realised loss today reached the daily limit ${this.limits.dailyLossLimit}`);
    const guarded = this.checkGuards(intent, ctx);
    if (guarded !== undefined) return guarded;
    const limits = limitsFor(this.limits, intent.market);
    return checkPriceBand(intent, ctx, limits) ?? checkMarketMinimums(intent, ctx, limits) ?? ALLOWED;
  }

  /** The trading-state rule alone (halted: cancels only; reducing: exits and cancels). */
  checkTradingState(intent: Intent): RiskDecision {
    if (intent.kind === 'cancel') return ALLOWED;
    const state = this.state.state;
    if (state === 'halted') return deny('trading_state', `trading is halted (${this.state.lastReason}): only cancels are allowed`);
    if (state === 'reducing' && !isExit(intent)) return deny('trading_state', `trading is reduce-only (${this.state.lastReason}): only exits and cancels are allowed`);
    return ALLOWED;
  }

  /** check() that throws RiskDeniedError (context.rule) instead of returning a denial. */
  assertAllowed(intent: Intent, ctx: RiskContext): void {
    const d = this.check(intent, ctx);
    if (!d.allowed) throw new RiskDeniedError(d.message, { rule: d.rule, market: intent.market, strategy: ctx.strategy });
  }


  dailyLossLimitReached(): boolean {
    const limit = this.limits.dailyLossLimit;
    return limit !== undefined && this.pnl.realizedToday().negated().greaterThanOrEqualTo(limit);
  }

  get tradingState(): TradingState {
    return this.state.state;
  }

  setTradingState(next: TradingState, reason: string): void {
    this.state.set(next, reason);
  }

  /** Replaces the limits (config reload). */
  setLimits(limits: RiskLimits): void {
    this.limits = limits;
  }
}

import type { Clock } from '../core/clock';
import type { Intent } from '../domain/intent';
import { RiskDeniedError } from '../domain/errors';
import { DailyPnl, type RealizedPnlEvent } from './daily-loss';
import {
  checkBalance, checkMarketMinimums, checkMarketNotional, checkOpenOrders, checkOrderNotional, checkPriceBand, deny,
  type RiskCheck, type RiskContext, type RiskDecision,
} from './risk-checks';
import { limitsFor, type RiskLimits } from './risk-limits';
import { isExit, TradingStateHolder, type TradingState } from './trading-state';

export interface RiskEngineOptions {
  readonly limits: RiskLimits;
  readonly clock: Clock;
  readonly initialState?: TradingState | undefined;
  /** Observes trading-state transitions (metrics, logs). */
  readonly onStateChange?: ((next: TradingState, previous: TradingState, reason: string) => void) | undefined;
}

const ALLOWED: RiskDecision = Object.freeze({ allowed: true });

/** Order of the per-order checks: cheap and most telling first. */
const ORDER_CHECKS: readonly RiskCheck[] = [
  checkPriceBand, checkMarketMinimums, checkOrderNotional, checkMarketNotional, checkOpenOrders, checkBalance,
];

/**
 * Pre-trade risk in front of the executor. Pure logic: no I/O, time from the injected clock.
 *
 * check() order: cancels always pass (they only reduce risk); then the trading state (halted:
 * nothing else; reducing: exits only); then the daily loss limit (entries only); then the named
 * per-order checks. The first failing rule is returned; the executor emits OrderDenied with it.
 */
export class RiskEngine {
  private limits: RiskLimits;
  private readonly state: TradingStateHolder;
  private readonly pnl: DailyPnl;

  constructor(opts: RiskEngineOptions) {
    this.limits = opts.limits;
    this.state = new TradingStateHolder(opts.initialState ?? 'active', opts.onStateChange);
    this.pnl = new DailyPnl(opts.clock);
  }

  check(intent: Intent, ctx: RiskContext): RiskDecision {
    if (intent.kind === 'cancel') return ALLOWED;
    const byState = this.checkTradingState(intent);
    if (!byState.allowed) return byState;
    const exit = isExit(intent);
    if (!exit && this.dailyLossLimitReached()) {
      return deny('daily_loss_limit', `realised loss today ${this.pnl.today().negated()} reached the daily limit ${this.limits.dailyLossLimit}: no new entries until 00:00 UTC`);
    }
    const limits = limitsFor(this.limits, intent.market);
    for (const check of ORDER_CHECKS) {
      const denial = check(intent, ctx, limits);
      if (denial !== undefined) return denial;
    }
    return ALLOWED;
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

  /** Feed every realised PnL (closed trade) here; the daily loss limit reads the sum of the UTC day. */
  recordRealizedPnl(event: RealizedPnlEvent): void {
    this.pnl.record(event);
  }

  realizedPnlToday(): ReturnType<DailyPnl['today']> {
    return this.pnl.today();
  }

  dailyLossLimitReached(): boolean {
    const limit = this.limits.dailyLossLimit;
    return limit !== undefined && this.pnl.today().negated().greaterThanOrEqualTo(limit);
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

import { Decimal } from '../../domain/decimal';
import { durationText } from '../../domain/duration';
import { compareDecimals } from '../../domain/decimal-compare';
import type { Intent } from '../../domain/intent';
import type { Balances, MarketName } from '../../domain/market';
import type { Portfolio } from '../../portfolio/portfolio';
import { RoundTripBook } from '../../portfolio/round-trips';
import { isExit } from '../../trading-state/trading-state';
import type { OpenOrderView } from '../open-order-view';
import { deny, intentNotional, type RiskDenial } from '../risk-checks';
import { EquityTrack, type EquityTrackSnapshot } from './equity-track';
import { guardsFor, type DrawdownRule, type GuardrailSettings, type StrategyGuards } from './guard-rules';
import { latchKey, type GuardLatch, type ReleaseCause } from './guard-latch';
import { LossBook, type PendingLoss } from './loss-book';
import { budgetView, type BudgetView } from './strategy-budget';

/** What the guardrails are told as they act (metrics, logs, the daemon's events, the backtest report). */
export interface GuardObserver {
  tripped?(latch: GuardLatch): void;
  released?(latch: GuardLatch, by: ReleaseCause): void;
  /** Equity and drawdown of a scope after a mark (gauges); `drawdown` is the largest over its rules. */
  measured?(scope: string, equity: Decimal, drawdown: Decimal): void;
  /** The state a restart needs changed: persist `snapshot()`. */
  changed?(): void;
}

/** What a check knows besides the intent. */
export interface GuardCheckContext {
  readonly strategy: string;
  /** Market time (ms) of the decision: the close of the candle the intent was made on, the same live and in a backtest. */
  readonly decisionMs: number;
  readonly balances: Balances;
  /** The strategy's open orders on every market (its budget). */
  readonly strategyOpenOrders: () => readonly OpenOrderView[];
  /** The money currency of the intent's market. */
  readonly money: string;
}

/** What a restart restores (stored as JSON by the daemon). */
export interface GuardSnapshot {
  readonly version: 1;
  readonly tracks: Readonly<Record<string, EquityTrackSnapshot>>;
  readonly losses: ReturnType<LossBook['snapshot']>;
  readonly latches: readonly GuardLatch[];
  readonly prices: Readonly<Record<string, string>>;
}

const ACCOUNT = 'account';
const ZERO = new Decimal(0);

/**
 * Drawdown stops (account and per strategy), cooldowns after losing round trips, and budgets per
 * strategy: the guardrails of docs/risk.md, inside the risk engine of every mode. Pure: no I/O, no
 * clock; time comes from the marks (the close of each settled candle) and each intent's candle, so a
 * backtest and the daemon decide the same on the same candles.
 *
 * Fed by the portfolio's fills (losing round trips; fills replayed from the journal at a restart are
 * not news: the snapshot has them) and by `mark` once per settled candle (prices, equity, peaks,
 * cooldowns counted, latches lifted when their time has passed).
 */
export class Guardrails {
  private readonly tracks = new Map<string, EquityTrack>();
  private readonly losses: LossBook;
  private readonly latched = new Map<string, GuardLatch>();
  private readonly prices = new Map<MarketName, Decimal>();
  private replaying = false;
  private readonly merged = new Map<string, StrategyGuards>();

  constructor(private readonly settings: GuardrailSettings, private readonly portfolio: Portfolio, private readonly observer: GuardObserver = {}) {
    const windows = [...Object.values(settings.strategies), settings.strategyDefaults].flatMap((g) => (g.cooldown ?? []).map((r) => r.windowMs));
    this.losses = new LossBook(Math.max(0, ...windows));
    // Registered before the round-trip book, so its close knows whether the fill was replayed.
    portfolio.onFill((_s, fill) => { this.replaying = fill.replayed === true; });
    new RoundTripBook(portfolio, (trip) => {
      if (this.replaying || !trip.gross.minus(trip.fees).isNegative()) return;
      if (this.guards(trip.strategy).cooldown.length > 0) this.losses.add({ strategy: trip.strategy, market: trip.market });
    });
  }

  /** A settled candle of `market` closed at `timeMs` at `close`: prices, equity, cooldowns, expiries. */
  mark(market: MarketName, close: Decimal, timeMs: number): void {
    this.prices.set(market, close);
    let changed = this.expire(timeMs);
    for (const loss of this.losses.stamp(market, timeMs)) changed = this.countLoss(loss, timeMs) || changed;
    changed = this.markEquity(timeMs) || changed;
    if (changed) this.observer.changed?.();
  }

  /** The guard that refuses the intent, if one does (cancels always pass). */
  check(intent: Intent, ctx: GuardCheckContext): RiskDenial | undefined {
    if (intent.kind === 'cancel') return undefined;
    if (this.expire(ctx.decisionMs)) this.observer.changed?.();
    const exit = isExit(intent);
    // A halt first: it says the most (every order stops), whatever tripped before it.
    const latch = this.firstLatch(ctx.strategy, intent.market, 'halt') ?? (exit ? undefined : this.firstLatch(ctx.strategy, intent.market, 'reduce'));
    if (latch !== undefined) return deny(latch.guard, `${latch.reason}: ${latch.action === 'halt' ? 'only cancels are allowed' : 'no new entries'} ${liftText(latch)}`);
    // A trailing stop reaches the risk engine leg by leg, as the stop-limits it places.
    if (exit || intent.kind === 'trailing_stop') return undefined;
    const budget = this.guards(ctx.strategy).budget;
    if (budget === undefined) return undefined;
    const view = this.budget(ctx.strategy, ctx.money, ctx.balances, ctx.strategyOpenOrders());
    const need = intentNotional(intent);
    if (view === undefined || compareDecimals(need, view.available) <= 0) return undefined;
    return deny('strategy_budget', `strategy ${ctx.strategy} would commit ${need} ${ctx.money} with ${Decimal.max(view.available, ZERO)} left of its budget `
      + `(allocated ${view.allocated.toDecimalPlaces(8)}, realised ${view.realized.toDecimalPlaces(8)}, committed ${view.committed.toDecimalPlaces(8)})`);
  }

  /** What `strategy`'s budget allows now; undefined without a budget. */
  budget(strategy: string, money: string, balances: Balances, openOrders: readonly OpenOrderView[]): BudgetView | undefined {
    const b = this.guards(strategy).budget;
    if (b === undefined) return undefined;
    return budgetView(strategy, b, { money, balances, priceOf: (m) => this.prices.get(m), positions: this.portfolio.states(), openOrders });
  }

  /** An operator lifts the account's stops (`account`) or a strategy's stops and cooldowns. */
  release(target: string): readonly GuardLatch[] {
    const lifted = [...this.latched.values()].filter((l) => (target === ACCOUNT ? l.scope === ACCOUNT : l.strategy === target));
    for (const l of lifted) {
      this.lift(l, 'operator');
      if (l.guard !== 'cooldown') this.tracks.get(l.scope)?.rebase();
    }
    if (lifted.length > 0) this.observer.changed?.();
    return lifted;
  }

  /** The guards in force, oldest first. */
  latches(): readonly GuardLatch[] {
    return [...this.latched.values()];
  }

  snapshot(): GuardSnapshot {
    const tracks: Record<string, EquityTrackSnapshot> = {};
    for (const [scope, t] of this.tracks) tracks[scope] = t.snapshot();
    const prices: Record<string, string> = {};
    for (const [m, p] of this.prices) prices[m] = p.toString();
    return { version: 1, tracks, losses: this.losses.snapshot(), latches: this.latches(), prices };
  }

  /** The state of an earlier run (before any mark of this one). */
  restore(s: GuardSnapshot): void {
    for (const [scope, t] of Object.entries(s.tracks)) this.track(scope)?.restore(t);
    this.losses.restore(s.losses);
    this.latched.clear();
    for (const l of s.latches) this.latched.set(latchKey(l), l);
    for (const [m, p] of Object.entries(s.prices)) this.prices.set(m, new Decimal(p));
  }

  private firstLatch(strategy: string, market: string, action: GuardLatch['action']): GuardLatch | undefined {
    for (const l of this.latched.values()) if (l.action === action && appliesTo(l, strategy, market)) return l;
    return undefined;
  }

  /** A strategy's guards, merged once (they are read on every mark, fill and entry). */
  private guards(strategy: string): StrategyGuards {
    let g = this.merged.get(strategy);
    if (g === undefined) {
      g = guardsFor(this.settings, strategy);
      this.merged.set(strategy, g);
    }
    return g;
  }

  private rulesOf(scope: string): readonly DrawdownRule[] {
    return scope === ACCOUNT ? this.settings.account.drawdown : this.guards(scope).drawdown;
  }

  private track(scope: string): EquityTrack | undefined {
    let t = this.tracks.get(scope);
    if (t === undefined) {
      const rules = this.rulesOf(scope);
      if (rules.length === 0) return undefined;
      t = new EquityTrack(rules);
      this.tracks.set(scope, t);
    }
    return t;
  }

  /** Equity per strategy (realised + unrealised at the marked prices) and of the account, then each drawdown rule. */
  private markEquity(timeMs: number): boolean {
    const states = this.portfolio.states();
    if (states.length === 0) return false;
    const byStrategy = new Map<string, Decimal>();
    for (const p of states) {
      const price = this.prices.get(p.market);
      const unrealized = price === undefined || p.amount.isZero() ? ZERO : p.amount.times(price.minus(p.averageEntry));
      byStrategy.set(p.strategy, (byStrategy.get(p.strategy) ?? ZERO).plus(p.realizedPnl).plus(unrealized));
    }
    let account = ZERO;
    let changed = false;
    for (const [strategy, equity] of byStrategy) {
      account = account.plus(equity);
      changed = this.markScope(strategy, equity, timeMs) || changed;
    }
    return this.markScope(ACCOUNT, account, timeMs) || changed;
  }

  private markScope(scope: string, equity: Decimal, timeMs: number): boolean {
    const track = this.track(scope);
    if (track === undefined) return false;
    track.mark(timeMs, equity);
    let worst = ZERO;
    let changed = true; // the peaks moved: a restart needs them
    const rules = this.rulesOf(scope);
    rules.forEach((rule, i) => {
      const dd = track.drawdown(rule, timeMs);
      if (compareDecimals(dd, worst) > 0) worst = dd;
      if (compareDecimals(dd, rule.max) < 0 || this.latched.has(latchKey({ guard: guardOf(scope), scope, rule: i }))) return;
      const over = rule.windowMs === undefined ? 'its all-time peak' : `its peak of the last ${durationText(rule.windowMs)}`;
      this.trip({
        guard: guardOf(scope), scope, rule: i, sinceMs: timeMs, strategy: scope === ACCOUNT ? undefined : scope,
        action: scope === ACCOUNT ? (rule as { action?: 'halt' | 'reduce' }).action ?? 'halt' : 'reduce',
        untilMs: rule.release === 'window' && rule.windowMs !== undefined ? timeMs + rule.windowMs : undefined,
        reason: `${scope === ACCOUNT ? 'the account' : `strategy ${scope}`} is ${dd} below ${over} (drawdown limit ${rule.max})`,
      });
      changed = true;
    });
    this.observer.measured?.(scope, equity, worst);
    return changed;
  }

  private countLoss(loss: PendingLoss, timeMs: number): boolean {
    let changed = true; // the loss itself is state a restart needs
    this.guards(loss.strategy).cooldown.forEach((rule, i) => {
      const scope = rule.scope === 'market' ? `${loss.strategy}|${loss.market}` : loss.strategy;
      if (this.latched.has(latchKey({ guard: 'cooldown', scope, rule: i }))) return;
      const n = this.losses.count(rule, loss.strategy, loss.market, timeMs);
      if (n < rule.losses) return;
      this.trip({
        guard: 'cooldown', scope, rule: i, sinceMs: timeMs, strategy: loss.strategy, market: rule.scope === 'market' ? loss.market : undefined,
        action: 'reduce', untilMs: timeMs + rule.pauseMs,
        reason: `strategy ${loss.strategy}${rule.scope === 'market' ? ` on ${loss.market}` : ''} closed ${n} losing round trips within ${durationText(rule.windowMs)} (cooldown after ${rule.losses})`,
      });
      changed = true;
    });
    return changed;
  }

  private trip(latch: GuardLatch): void {
    this.latched.set(latchKey(latch), latch);
    this.observer.tripped?.(latch);
  }

  /** Lifts the latches whose time has come; true when one was. */
  private expire(nowMs: number): boolean {
    let any = false;
    for (const l of this.latched.values()) {
      if (l.untilMs !== undefined && l.untilMs <= nowMs) {
        this.lift(l, 'window');
        any = true;
      }
    }
    return any;
  }

  private lift(l: GuardLatch, by: ReleaseCause): void {
    this.latched.delete(latchKey(l));
    this.observer.released?.(l, by);
  }
}

function guardOf(scope: string): 'account_drawdown' | 'strategy_drawdown' {
  return scope === ACCOUNT ? 'account_drawdown' : 'strategy_drawdown';
}

function appliesTo(l: GuardLatch, strategy: string, market: string): boolean {
  if (l.scope === ACCOUNT) return true;
  return l.strategy === strategy && (l.market === undefined || l.market === market);
}

function liftText(l: GuardLatch): string {
  return l.untilMs === undefined ? 'until an operator resumes it' : `until ${new Date(l.untilMs).toISOString()}`;
}

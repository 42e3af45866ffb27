import type { Candle, Interval } from '../domain/candle';
import type { Balances, MarketInfo, MarketName } from '../domain/market';
import type { Intent } from '../domain/intent';
import { Decimal } from '../domain/decimal';
import type { Clock } from '../core/clock';
import { StrategyFailedError } from '../domain/errors';
import { STRATEGY_DEFAULTS } from '../config/defaults';
import { CandleRing } from './candle-series';
import { indicators } from './indicators';
import { validateIntents, type StampedIntent } from './intent-validation';
import type { OpenOrderView } from '../risk/open-order-view';
import type { OrderEvent, PositionView } from './order-feedback';
import type { LoadedStrategy } from './prepare-strategy';
import type { StrategyContext, StrategyLogger } from './strategy';

/** Counters and hooks; metrics attach here (all optional, all synchronous, must not throw). */
export interface StrategyHostEvents {
  onIntents?(e: { strategy: string; market: MarketName; candleTime: number; intents: readonly StampedIntent[] }): void;
  onError?(e: { strategy: string; market: MarketName; candleTime: number; error: StrategyFailedError; consecutiveFailures: number }): void;
  onOverrun?(e: { strategy: string; market: MarketName; candleTime: number; elapsedMs: number; budgetMs: number }): void;
  onPaused?(e: { strategy: string; consecutiveFailures: number; error: StrategyFailedError }): void;
  onResumed?(e: { strategy: string }): void;
  /**
   * One onCandle call finished (returned, threw or resolved/rejected), with its duration from the
   * host's stopwatch (tradebot_strategy_duration_seconds). Timed only when this listener is set or
   * the time budget is finite. An async call cut off by the budget reports the time until the cut.
   */
  onDuration?(e: { strategy: string; market: MarketName; elapsedMs: number }): void;
  /** A candle at or before the last one seen for that (strategy, market) was ignored. */
  onSkipped?(e: { strategy: string; market: MarketName; candleTime: number; lastTime: number }): void;
}

/** What the host caller knows about the account, read when a strategy is about to run. */
export interface StrategyHostView {
  balances?(): Balances;
  /** This strategy's open orders on this market. */
  openOrders?(strategy: string, market: MarketName): readonly OpenOrderView[];
  marketInfo?(market: MarketName): MarketInfo | undefined;
  /** This strategy's position on the market, valued at `lastPrice` (the candle's close). */
  position?(strategy: string, market: MarketName, lastPrice: Decimal): PositionView;
  /** What happened to its orders since its last call; called once per call (it drains). */
  events?(strategy: string, market: MarketName): readonly OrderEvent[];
}

/** Timers for the async time budget only (a sync strategy is timed with `stopwatch`, no timer). */
export interface HostTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface StrategyHostOptions {
  readonly strategies: readonly LoadedStrategy<any>[];
  /** Log each failure here (default true); a guest leaves it to the daemon, which logs one line per failure. */
  readonly logFailures?: boolean | undefined;
  readonly clock: Clock;
  readonly view?: StrategyHostView | undefined;
  readonly events?: StrategyHostEvents | undefined;
  /** Base logger; each (strategy, market) gets `child({ strategy, market })` when available. */
  readonly logger?: (StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger }) | undefined;
  /** Per onCandle call; default STRATEGY_DEFAULTS.timeBudgetMs (250). Infinity disables timing. */
  readonly timeBudgetMs?: number | undefined;
  /**
   * What an onCandle call over the budget does. 'drop' (default, live): it is a failure and its
   * intents are dropped (the market moved on). 'count' (backtests): it is counted (stats.overruns,
   * onOverrun) and its intents are kept, so results never depend on the machine's speed; no timer
   * cuts an async call short.
   */
  readonly overrunPolicy?: 'drop' | 'count' | undefined;
  /** Consecutive failures (throw, overrun, invalid intents) that pause a strategy; default STRATEGY_DEFAULTS.maxConsecutiveFailures (5). */
  readonly maxConsecutiveFailures?: number | undefined;
  /** Monotonic ms for measuring the budget; default performance.now. */
  readonly stopwatch?: (() => number) | undefined;
  readonly timers?: HostTimers | undefined;
}

export interface StrategyStats {
  readonly calls: number;
  readonly intents: number;
  readonly errors: number;
  readonly overruns: number;
  readonly consecutiveFailures: number;
  readonly paused: boolean;
}

type Result = readonly StampedIntent[];
const EMPTY: Result = Object.freeze([]);
const NOOP_LOGGER: StrategyLogger = { debug() {}, info() {}, warn() {}, error() {} };
const NO_BALANCES: Balances = Object.freeze({});
const NO_ORDERS: readonly OpenOrderView[] = Object.freeze([]);
const NO_EVENTS: readonly OrderEvent[] = Object.freeze([]);
const FLAT: PositionView = Object.freeze({ amount: new Decimal(0), averageEntry: undefined, unrealizedPnl: new Decimal(0) });
const DEFAULT_TIMERS: HostTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface Runner {
  readonly loaded: LoadedStrategy<any>;
  readonly markets: ReadonlySet<string>;
  stats: { calls: number; intents: number; errors: number; overruns: number; consecutiveFailures: number; paused: boolean };
}

interface Slot {
  readonly runner: Runner;
  readonly market: MarketName;
  readonly ring: CandleRing;
  readonly log: StrategyLogger;
  state: unknown;
  initialised: boolean;
  lastTime: number;
  /** Set while an async onCandle of this slot runs: later candles queue behind it. */
  pending: Promise<Result> | undefined;
  /** ctx.position, valued at this candle's close once read (see positionOnRead). */
  position: { readonly candle: Candle; readonly view: PositionView } | undefined;
  readonly ctx: { -readonly [K in keyof StrategyContext<unknown, unknown>]: StrategyContext<unknown, unknown>[K] };
}

class Overrun extends Error {}

/**
 * Feeds closed candles to strategies. One ring-buffer window per (strategy, market); warm-up
 * enforced; each call isolated (a throw, an overrun or invalid intents is this strategy's failure
 * only); N consecutive failures pause the strategy until resume(). Candles keep flowing into a
 * paused strategy's window, so it is warm when resumed.
 *
 * Candles must be CLOSED candles; each (strategy, market) sees each candle once, in time order:
 * a candle at or before the last seen one is skipped. handleCandle returns synchronously when
 * every strategy involved is synchronous (the backtest hot path) and a Promise otherwise; `await`
 * works on both.
 */
export class StrategyHost {
  /** Subscriptions in first-seen order (what subscriptions() lists). */
  private readonly routes = new Map<string, { market: MarketName; interval: Interval }>();
  /**
   * market -> interval -> slots. Nested so handleCandle builds no key string per candle (a
   * concatenated key cost an allocation and a hash per call), plus the last route found, because a
   * feed (a backtest above all) hands many candles of the same (market, interval) in a row.
   */
  private readonly slotsByMarket = new Map<MarketName, Map<Interval, Slot[]>>();
  private lastMarket: MarketName | undefined;
  private lastInterval: Interval | undefined;
  private lastSlots: Slot[] | undefined;
  private readonly runners = new Map<string, Runner>();
  private readonly clock: Clock;
  private readonly view: StrategyHostView;
  private readonly events: StrategyHostEvents;
  private readonly budgetMs: number;
  private readonly dropOverruns: boolean;
  private readonly maxFailures: number;
  private readonly logFailures: boolean;
  private readonly stopwatch: () => number;
  private readonly timers: HostTimers;
  /** Read the stopwatch around onCandle: a finite budget, or a duration listener. */
  private readonly timed: boolean;

  constructor(opts: StrategyHostOptions) {
    this.clock = opts.clock;
    this.view = opts.view ?? {};
    this.events = opts.events ?? {};
    this.budgetMs = opts.timeBudgetMs ?? STRATEGY_DEFAULTS.timeBudgetMs;
    this.dropOverruns = opts.overrunPolicy !== 'count';
    this.maxFailures = opts.maxConsecutiveFailures ?? STRATEGY_DEFAULTS.maxConsecutiveFailures;
    this.logFailures = opts.logFailures ?? true;
    this.stopwatch = opts.stopwatch ?? (() => performance.now());
    this.timers = opts.timers ?? DEFAULT_TIMERS;
    this.timed = this.budgetMs !== Number.POSITIVE_INFINITY || this.events.onDuration !== undefined;
    for (const loaded of opts.strategies) {
      if (this.runners.has(loaded.name)) throw new RangeError(`strategy ${loaded.name} given twice to the host`);
      const runner: Runner = {
        loaded, markets: new Set(loaded.markets),
        stats: { calls: 0, intents: 0, errors: 0, overruns: 0, consecutiveFailures: 0, paused: false },
      };
      this.runners.set(loaded.name, runner);
      for (const market of loaded.markets) {
        const key = routeKey(market, loaded.interval);
        const log = opts.logger?.child?.({ strategy: loaded.name, market }) ?? opts.logger ?? NOOP_LOGGER;
        const slot: Slot = {
          runner, market, ring: new CandleRing(loaded.window), log, state: undefined, initialised: false,
          lastTime: Number.NEGATIVE_INFINITY, pending: undefined, position: undefined,
          ctx: {
            strategy: loaded.name, market, interval: loaded.interval, candle: undefined as unknown as Candle,
            candles: undefined as unknown as CandleRing, indicators, balances: NO_BALANCES, openOrders: NO_ORDERS,
            position: FLAT, events: NO_EVENTS,
            params: loaded.params, log, marketInfo: undefined, state: undefined, nowMs: 0,
          },
        };
        slot.ctx.candles = slot.ring;
        this.positionOnRead(slot);
        if (!this.routes.has(key)) this.routes.set(key, { market, interval: loaded.interval });
        let byInterval = this.slotsByMarket.get(market);
        if (byInterval === undefined) {
          byInterval = new Map();
          this.slotsByMarket.set(market, byInterval);
        }
        const list = byInterval.get(loaded.interval);
        if (list === undefined) byInterval.set(loaded.interval, [slot]);
        else list.push(slot);
      }
    }
  }

  /** The (market, interval) pairs the daemon must poll. */
  subscriptions(): { market: MarketName; interval: Interval }[] {
    return [...this.routes.values()].map(({ market, interval }) => ({ market, interval }));
  }

  /** Hands one closed candle of (market, interval) to every strategy subscribed to it. */
  handleCandle(market: MarketName, interval: Interval, candle: Candle): Result | Promise<Result> {
    let slots: Slot[] | undefined;
    if (market === this.lastMarket && interval === this.lastInterval) slots = this.lastSlots;
    else {
      slots = this.slotsByMarket.get(market)?.get(interval);
      this.lastMarket = market;
      this.lastInterval = interval;
      this.lastSlots = slots;
    }
    if (slots === undefined) return EMPTY;
    if (slots.length === 1) return this.feed(slots[0] as Slot, candle);
    let out: StampedIntent[] | undefined;
    let promises: (Result | Promise<Result>)[] | undefined;
    for (let i = 0; i < slots.length; i++) {
      const r = this.feed(slots[i] as Slot, candle);
      if (promises !== undefined) promises.push(r);
      else if (r instanceof Promise) promises = [out ?? EMPTY, r];
      else if (r.length > 0) (out ??= []).push(...r);
    }
    if (promises !== undefined) return Promise.all(promises).then((all) => all.flat());
    return out ?? EMPTY;
  }

  pause(strategy: string): void {
    this.runner(strategy).stats.paused = true;
  }

  /** Resumes a paused strategy and clears its consecutive-failure count. */
  resume(strategy: string): void {
    const r = this.runner(strategy);
    const was = r.stats.paused;
    r.stats.paused = false;
    r.stats.consecutiveFailures = 0;
    if (was) this.events.onResumed?.({ strategy });
  }

  isPaused(strategy: string): boolean {
    return this.runner(strategy).stats.paused;
  }

  stats(strategy: string): StrategyStats {
    return { ...this.runner(strategy).stats };
  }

  strategyNames(): string[] {
    return [...this.runners.keys()];
  }

  private runner(name: string): Runner {
    const r = this.runners.get(name);
    if (r === undefined) throw new RangeError(`unknown strategy ${name}`);
    return r;
  }

  private feed(slot: Slot, candle: Candle): Result | Promise<Result> {
    if (candle.time <= slot.lastTime) {
      this.events.onSkipped?.({ strategy: slot.runner.loaded.name, market: slot.market, candleTime: candle.time, lastTime: slot.lastTime });
      return EMPTY;
    }
    slot.lastTime = candle.time;
    if (slot.pending !== undefined) {
      const next: Promise<Result> = slot.pending.then(() => this.step(slot, candle));
      slot.pending = next;
      void next.then(() => { if (slot.pending === next) slot.pending = undefined; });
      return next;
    }
    const r = this.step(slot, candle);
    if (r instanceof Promise) {
      slot.pending = r;
      void r.then(() => { if (slot.pending === r) slot.pending = undefined; });
    }
    return r;
  }

  /**
   * `ctx.position` is valued at the candle's close when the strategy first reads it on that candle:
   * most strategies never read it, and valuing it costs Decimal arithmetic on every candle of a
   * backtest (bench/RESULTS.md, "One trading kernel"). Between two candles nothing moves it.
   */
  private positionOnRead(slot: Slot): void {
    Object.defineProperty(slot.ctx, 'position', {
      enumerable: true,
      get: (): PositionView => {
        const candle = slot.ctx.candle;
        if (slot.position?.candle !== candle) {
          slot.position = { candle, view: this.view.position?.(slot.runner.loaded.name, slot.market, candle.close) ?? FLAT };
        }
        return slot.position.view;
      },
    });
  }

  /** Pushes the candle and runs onCandle when warm and not paused. Never throws or rejects. */
  private step(slot: Slot, candle: Candle): Result | Promise<Result> {
    slot.ring.push(candle);
    const runner = slot.runner;
    if (runner.stats.paused || slot.ring.total < runner.loaded.warmup) return EMPTY;
    const ctx = slot.ctx;
    ctx.candle = candle;
    ctx.nowMs = this.clock.nowMs();
    ctx.balances = this.view.balances?.() ?? NO_BALANCES;
    ctx.openOrders = this.view.openOrders?.(runner.loaded.name, slot.market) ?? NO_ORDERS;
    ctx.marketInfo = this.view.marketInfo?.(slot.market);
    ctx.events = this.view.events?.(runner.loaded.name, slot.market) ?? NO_EVENTS;
    runner.stats.calls++;
    const timed = this.timed;
    const started = timed ? this.stopwatch() : 0;
    let raw: unknown;
    try {
      if (!slot.initialised) {
        const init = runner.loaded.definition.initState;
        slot.state = init === undefined ? {} : init.call(runner.loaded.definition, { params: runner.loaded.params, market: slot.market, indicators });
        slot.initialised = true;
      }
      ctx.state = slot.state;
      raw = runner.loaded.definition.onCandle(ctx as StrategyContext<any, any>);
    } catch (err) {
      if (timed) this.duration(slot, this.stopwatch() - started);
      return this.fail(slot, candle, 'threw', err);
    }
    if (isPromise(raw)) return this.settleAsync(slot, candle, Promise.resolve(raw), started);
    if (timed) {
      const elapsed = this.stopwatch() - started;
      this.duration(slot, elapsed);
      if (elapsed > this.budgetMs) {
        if (this.dropOverruns) return this.overrun(slot, candle, elapsed);
        this.countOverrun(slot, candle, elapsed);
      }
    }
    return this.accept(slot, candle, raw);
  }

  private duration(slot: Slot, elapsedMs: number): void {
    this.events.onDuration?.({ strategy: slot.runner.loaded.name, market: slot.market, elapsedMs });
  }

  private settleAsync(slot: Slot, candle: Candle, raw: Promise<unknown>, started: number): Promise<Result> {
    if (this.budgetMs === Number.POSITIVE_INFINITY || !this.dropOverruns) {
      if (!this.timed) return raw.then((v) => this.accept(slot, candle, v), (err: unknown) => this.fail(slot, candle, 'threw', err));
      const settled = (): void => {
        const elapsed = this.stopwatch() - started;
        this.duration(slot, elapsed);
        if (elapsed > this.budgetMs) this.countOverrun(slot, candle, elapsed);
      };
      return raw.then(
        (v) => { settled(); return this.accept(slot, candle, v); },
        (err: unknown) => { settled(); return this.fail(slot, candle, 'threw', err); },
      );
    }
    let handle: unknown;
    const deadline = new Promise<never>((_, reject) => {
      handle = this.timers.setTimeout(() => reject(new Overrun()), this.budgetMs);
    });
    return Promise.race([raw, deadline]).then(
      (v) => {
        this.timers.clearTimeout(handle);
        const elapsed = this.stopwatch() - started;
        this.duration(slot, elapsed);
        return elapsed > this.budgetMs ? this.overrun(slot, candle, elapsed) : this.accept(slot, candle, v);
      },
      (err: unknown) => {
        this.timers.clearTimeout(handle);
        const elapsed = this.stopwatch() - started;
        this.duration(slot, elapsed);
        return err instanceof Overrun ? this.overrun(slot, candle, elapsed) : this.fail(slot, candle, 'threw', err);
      },
    );
  }

  private accept(slot: Slot, candle: Candle, raw: unknown): Result {
    const runner = slot.runner;
    if (Array.isArray(raw) && raw.length === 0) {
      runner.stats.consecutiveFailures = 0;
      return EMPTY;
    }
    const checked = validateIntents(raw, runner.markets);
    if (!checked.ok) return this.fail(slot, candle, 'invalid_intents', new Error(checked.reason));
    runner.stats.consecutiveFailures = 0;
    const stamped = checked.intents.map((intent: Intent): StampedIntent => ({
      strategy: runner.loaded.name, interval: runner.loaded.interval, candleTime: candle.time, intent,
    }));
    runner.stats.intents += stamped.length;
    this.events.onIntents?.({ strategy: runner.loaded.name, market: slot.market, candleTime: candle.time, intents: stamped });
    return stamped;
  }

  private countOverrun(slot: Slot, candle: Candle, elapsedMs: number): void {
    slot.runner.stats.overruns++;
    this.events.onOverrun?.({ strategy: slot.runner.loaded.name, market: slot.market, candleTime: candle.time, elapsedMs, budgetMs: this.budgetMs });
  }

  private overrun(slot: Slot, candle: Candle, elapsedMs: number): Result {
    this.countOverrun(slot, candle, elapsedMs);
    // Intents computed too late are dropped: the market moved on and the next candle may be due.
    return this.fail(slot, candle, 'overrun', new Error(`onCandle took ${elapsedMs.toFixed(1)} ms, budget ${this.budgetMs} ms`));
  }

  private fail(slot: Slot, candle: Candle, reason: 'threw' | 'overrun' | 'invalid_intents', cause: unknown): Result {
    const runner = slot.runner;
    const name = runner.loaded.name;
    const stats = runner.stats;
    stats.errors++;
    stats.consecutiveFailures++;
    // Duck-typed: an Error of the strategy's realm is not `instanceof` this one's.
    const message = (cause as { message?: unknown } | null | undefined)?.message;
    const detail = typeof message === 'string' ? message : String(cause);
    const error = new StrategyFailedError(`strategy ${name} on ${slot.market} (candle ${candle.time}): ${reason}: ${detail}`,
      { strategy: name, market: slot.market, candleTime: candle.time, reason }, { cause });
    if (this.logFailures) slot.log.error({ err: error }, 'strategy failed');
    this.events.onError?.({ strategy: name, market: slot.market, candleTime: candle.time, error, consecutiveFailures: stats.consecutiveFailures });
    if (!stats.paused && stats.consecutiveFailures >= this.maxFailures) {
      stats.paused = true;
      slot.log.warn({ strategy: name, consecutiveFailures: stats.consecutiveFailures }, 'strategy paused');
      this.events.onPaused?.({ strategy: name, consecutiveFailures: stats.consecutiveFailures, error });
    }
    return EMPTY;
  }
}

function routeKey(market: string, interval: string): string {
  return `${interval}|${market}`;
}

/** A strategy's own promise may come from another realm or library: duck-type it. */
function isPromise(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

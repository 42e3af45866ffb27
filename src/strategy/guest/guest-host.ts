import type { Clock } from '../../core/clock';
import type { Candle, Interval } from '../../domain/candle';
import { StrategyFailedError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import { STRATEGY_DEFAULTS } from '../../config/defaults';
import { CandleRing } from '../candle-series';
import { validateIntents, type StampedIntent } from '../intent-validation';
import type { LoadedStrategy, StrategyConfig } from '../prepare-strategy';

/**
 * What the host needs to know of a strategy; its code stays in its guest. `identity` (code version and
 * parameters) is stamped on its intents when known; `file` names its module (the guest loads and may
 * read that file of the host's directory alone, besides the helpers: sandbox.strategyReadable).
 */
export type GuestStrategy = Pick<LoadedStrategy, 'name' | 'markets' | 'interval' | 'warmup' | 'window'> & { readonly identity?: StrategyIdentity | undefined; readonly file?: string | undefined };
import type { StrategyLogger } from '../strategy';
import type { StrategyIdentity } from '../strategy-version';
import type { StrategyHostEvents, StrategyHostView, StrategyStats } from '../strategy-host';
import * as path from 'node:path';
import { openChannel, type GuestChannel } from './guest-channel';
import { capLogData, GUEST_LOG_DEFAULTS, GuestLogGate } from './guest-log-gate';
import type { GuestIsolationLevel } from '../../domain/guest-isolation';
import { defaultIsolation, strategyReadable } from './sandbox';
import type { CandleItem, FromGuest, ItemResult, ToGuest } from './protocol';
import { candleToWire, fromWire, toWire } from './wire';

/** What the candle flow needs of a strategy host: the in-process StrategyHost and GuestHost both fit. */
/** How a closed candle reaches the strategies. `warm`: start-up history (warm-up), not traded on. */
export interface CandleDelivery {
  readonly warm?: boolean;
}

export interface CandleHost {
  subscriptions(): { market: MarketName; interval: Interval }[];
  handleCandle(market: MarketName, interval: Interval, candle: Candle, delivery?: CandleDelivery): readonly StampedIntent[] | Promise<readonly StampedIntent[]>;
  pause(strategy: string): void;
  resume(strategy: string): void;
  isPaused(strategy: string): boolean;
  stats(strategy: string): StrategyStats;
  strategyNames(): string[];
}

export interface GuestHostEvents extends StrategyHostEvents {
  /** A guest's thread was ended (overrun, crash, heap) and a fresh one is being started and re-warmed. */
  onRestart?(e: { strategy: string; reason: string }): void;
  /** One message went to a guest carrying `candles` closed candles (a batch; re-warm excluded). */
  onBatch?(e: { strategy: string; candles: number }): void;
  /** Guest log lines dropped over the rate cap, or cut to the size cap (guest-log-gate.ts). */
  onLogCapped?(e: { strategy: string; reason: 'rate' | 'size'; lines: number }): void;
}

export interface GuestHostOptions {
  /** The strategies' metadata (as described by a guest: describeStrategies); their code runs only in the guests. */
  readonly strategies: readonly GuestStrategy[];
  /** The module directory and each strategy's config overrides: each guest loads its own module. */
  readonly dir: string;
  readonly configFor: (name: string) => StrategyConfig;
  readonly clock: Clock;
  readonly view?: StrategyHostView | undefined;
  readonly events?: GuestHostEvents | undefined;
  readonly logger?: (StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger }) | undefined;
  /** Deadline of one onCandle call (ms); default STRATEGY_DEFAULTS.timeBudgetMs. */
  readonly timeBudgetMs?: number | undefined;
  readonly maxConsecutiveFailures?: number | undefined;
  /** Heap limit of one guest (V8 old generation), MB. */
  readonly heapMb?: number | undefined;
  /** How each guest is walled off (sandbox.ts); default the strongest this host allows. */
  readonly isolation?: GuestIsolationLevel | undefined;
  /** Guest log lines: at most this many per second, burst included (guest-log-gate.ts). */
  readonly logLinesPerSecond?: number | undefined;
  /** Time a guest gets to load its module. */
  readonly startMs?: number | undefined;
}

type CallResult = { readonly results: unknown } | { readonly dead: string };
interface Queued { readonly market: MarketName; readonly candle: Candle; readonly warm: boolean; readonly resolve: (intents: readonly StampedIntent[]) => void }
const EMPTY: readonly StampedIntent[] = Object.freeze([]);
const DEFAULT_HEAP_MB = 128;
const NOOP_LOGGER: StrategyLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Each strategy as a guest: its own child process under Node's permission model (or worker thread:
 * guest-channel.ts) with NO environment variables (`env: {}`), a heap limit, and no handle on the
 * exchange client, the store or the config. Candles go in batches (one out per guest). Only plain
 * data crosses (wire.ts): candles, balances, its own open orders, position, events and market info
 * in; intents and log lines out, the intents validated again here. An onCandle call that misses its
 * deadline gets its guest killed; a guest that exits (process.exit), dies of its heap limit or
 * fails to answer is the same failure: counted, the strategy paused while a fresh guest loads the
 * module and is re-warmed with the candle history this side kept, then resumed; after
 * `maxConsecutiveFailures` in a row it stays paused until resume(). Nothing here ever waits on a
 * guest beyond its deadline, and the guests are unref'ed: shutdown never waits for one.
 */
export class GuestHost implements CandleHost {
  private readonly guests = new Map<string, Guest>();
  private readonly routes = new Map<string, { market: MarketName; interval: Interval }>();

  constructor(o: GuestHostOptions) {
    for (const s of o.strategies) {
      if (this.guests.has(s.name)) throw new RangeError(`strategy ${s.name} given twice to the host`);
      this.guests.set(s.name, new Guest(s, o));
      for (const market of s.markets) {
        const key = `${s.interval}|${market}`;
        if (!this.routes.has(key)) this.routes.set(key, { market, interval: s.interval });
      }
    }
  }

  /** Starts every guest (loads its module in its thread). A guest that fails to start is counted and paused. */
  async start(): Promise<void> {
    await Promise.all([...this.guests.values()].map((g) => g.start()));
  }

  subscriptions(): { market: MarketName; interval: Interval }[] {
    return [...this.routes.values()].map((r) => ({ ...r }));
  }

  async handleCandle(market: MarketName, interval: Interval, candle: Candle, delivery?: CandleDelivery): Promise<readonly StampedIntent[]> {
    const calls: Promise<readonly StampedIntent[]>[] = [];
    for (const g of this.guests.values()) {
      if (g.loaded.interval === interval && g.loaded.markets.includes(market)) calls.push(g.handle(market, candle, delivery?.warm === true));
    }
    if (calls.length === 0) return EMPTY;
    const all = await Promise.all(calls);
    return all.length === 1 ? (all[0] as readonly StampedIntent[]) : all.flat();
  }

  pause(strategy: string): void {
    this.guest(strategy).pause();
  }

  resume(strategy: string): void {
    this.guest(strategy).resume();
  }

  /** Since when and why a strategy is paused after repeated failures (undefined: not paused so). */
  pausedAfterFailures(strategy: string): { readonly sinceMs: number; readonly reason: string } | undefined {
    return this.guest(strategy).pausedAfter;
  }

  isPaused(strategy: string): boolean {
    return this.guest(strategy).stats.paused;
  }

  stats(strategy: string): StrategyStats {
    return { ...this.guest(strategy).stats };
  }

  strategyNames(): string[] {
    return [...this.guests.keys()];
  }

  /** The closed candles kept for a strategy's re-warm, per market (a shadow version is warmed from them). */
  history(strategy: string): ReadonlyMap<MarketName, readonly Candle[]> {
    return this.guest(strategy).history();
  }

  /**
   * Starts every guest warmed with `history` (another version's kept candles) instead of waiting for
   * the flow's warm-up; resolves the first reason one failed to load or warm, undefined when all run.
   * A failure here is a refusal for the caller (a new version), not a counted strategy failure.
   */
  async startWarmed(history: (strategy: string) => ReadonlyMap<MarketName, readonly Candle[]>): Promise<string | undefined> {
    const reasons = await Promise.all([...this.guests.values()].map((g) => g.startWarmed(history(g.loaded.name))));
    return reasons.find((r) => r !== undefined);
  }

  /** Terminates every guest thread (never waits for a guest's own code). */
  async close(): Promise<void> {
    await Promise.all([...this.guests.values()].map((g) => g.close()));
  }

  private guest(name: string): Guest {
    const g = this.guests.get(name);
    if (g === undefined) throw new RangeError(`unknown strategy ${name}`);
    return g;
  }
}

class Guest {
  readonly stats = { calls: 0, intents: 0, errors: 0, overruns: 0, consecutiveFailures: 0, paused: false };
  private worker: GuestChannel | undefined;
  private readonly rings = new Map<MarketName, CandleRing>();
  private readonly markets: ReadonlySet<string>;
  private readonly log: StrategyLogger & { child?(bindings: Record<string, unknown>): StrategyLogger };
  private readonly events: GuestHostEvents;
  private readonly budgetMs: number;
  private readonly maxFailures: number;
  private pending = new Map<number, (r: CallResult) => void>();
  private nextId = 1;
  /** Candles waiting for the batch in flight to come back; they go together, in arrival order. */
  private queue: Queued[] = [];
  private inFlight = false;
  /** Set while a fresh thread loads and re-warms: candles only go to the history meanwhile. */
  private restarting: Promise<void> | undefined;
  private closed = false;
  /** Paused by the operator (resume() needed), as opposed to paused while restarting. */
  private held = false;
  /** Since when (wall clock, for the operator) and why it stays paused after repeated failures; cleared by resume(). */
  pausedAfter: { readonly sinceMs: number; readonly reason: string } | undefined;
  private readonly logGate: GuestLogGate;

  constructor(readonly loaded: GuestStrategy, private readonly o: GuestHostOptions) {
    this.markets = new Set(loaded.markets);
    this.log = o.logger ?? NOOP_LOGGER;
    this.events = o.events ?? {};
    this.budgetMs = o.timeBudgetMs ?? STRATEGY_DEFAULTS.timeBudgetMs;
    this.maxFailures = o.maxConsecutiveFailures ?? STRATEGY_DEFAULTS.maxConsecutiveFailures;
    for (const m of loaded.markets) this.rings.set(m, new CandleRing(Math.max(loaded.window, loaded.warmup, 1)));
    const perSecond = o.logLinesPerSecond ?? GUEST_LOG_DEFAULTS.perSecond;
    this.logGate = new GuestLogGate({ perSecond, burst: Math.max(perSecond, GUEST_LOG_DEFAULTS.burst), clock: { nowMs: () => performance.now() } });
  }

  async start(): Promise<void> {
    const reason = await this.spawn();
    if (reason !== undefined) this.failed(undefined, 'crashed', reason);
  }

  history(): ReadonlyMap<MarketName, readonly Candle[]> {
    return new Map([...this.rings].map(([m, ring]) => [m, ring.toArray()]));
  }

  async startWarmed(history: ReadonlyMap<MarketName, readonly Candle[]>): Promise<string | undefined> {
    for (const [market, candles] of history) {
      const ring = this.rings.get(market);
      if (ring !== undefined) for (const c of candles) ring.push(c);
    }
    const reason = await this.spawn();
    if (reason !== undefined) return reason;
    const warm = await this.warm();
    return warm === undefined ? undefined : `warm-up: ${warm}`;
  }

  /** `warm`: a start-up warm-up candle (the guest marks its log lines and discards its intents). */
  handle(market: MarketName, candle: Candle, warm = false): Promise<readonly StampedIntent[]> {
    const ring = this.rings.get(market) as CandleRing;
    ring.push(candle);
    if (this.stats.paused || this.worker === undefined) return Promise.resolve(EMPTY);
    return new Promise((resolve) => {
      this.queue.push({ market, candle, warm, resolve });
      this.pump();
    });
  }

  /**
   * At most one batch out per guest: an idle guest gets a candle at once (no added latency); the
   * candles that arrive while it works go together in its next message (the daemon's kline jobs of
   * one candle close answer within moments of each other, so that is usually all its markets at once).
   */
  private pump(): void {
    if (this.inFlight || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.inFlight = true;
    void this.call(batch).then(
      (results) => { for (let i = 0; i < batch.length; i++) (batch[i] as Queued).resolve(results[i] ?? EMPTY); },
      () => { for (const q of batch) q.resolve(EMPTY); },
    ).finally(() => {
      this.inFlight = false;
      this.pump();
    });
  }

  pause(): void {
    this.held = true;
    this.stats.paused = true;
  }

  resume(): void {
    const was = this.stats.paused;
    this.held = false;
    this.pausedAfter = undefined;
    this.stats.consecutiveFailures = 0;
    if (this.worker === undefined && this.restarting === undefined) {
      this.restart('resumed');
      return;
    }
    this.stats.paused = this.restarting !== undefined;
    if (was && !this.stats.paused) this.events.onResumed?.({ strategy: this.loaded.name });
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve({ dead: 'daemon stopping' });
    this.pending.clear();
    if (w !== undefined) await w.kill();
  }

  /** One batch to the guest; per candle its stamped intents (empty for a failed one). */
  private async call(batch: readonly Queued[]): Promise<(readonly StampedIntent[])[]> {
    if (this.stats.paused || this.worker === undefined) return [];
    const name = this.loaded.name;
    const view = this.o.view ?? {};
    const items: CandleItem[] = batch.map(({ market, candle, warm }) => ({
      market,
      candle: candleToWire(candle),
      ...(warm ? { warm } : {}),
      view: toWire({
        balances: view.balances?.() ?? {},
        openOrders: view.openOrders?.(name, market) ?? [],
        marketInfo: view.marketInfo?.(market),
        position: view.position?.(name, market, candle.close),
        events: view.events?.(name, market) ?? [],
      }),
    }));
    this.stats.calls += batch.length;
    this.events.onBatch?.({ strategy: name, candles: batch.length });
    const started = performance.now();
    const deadlineMs = this.budgetMs * batch.length;
    const result = await this.send(items, false, deadlineMs);
    const elapsedMs = performance.now() - started;
    const first = batch[0] as Queued;
    if ('dead' in result) {
      if (result.dead === 'overrun') {
        this.stats.overruns++;
        this.events.onDuration?.({ strategy: name, market: first.market, elapsedMs });
        this.events.onOverrun?.({ strategy: name, market: first.market, candleTime: first.candle.time, elapsedMs, budgetMs: deadlineMs });
        this.failed(first.candle, 'overrun', `onCandle took over ${deadlineMs} ms for ${batch.length} candle(s) (${this.budgetMs} ms each): guest killed`, first.market);
      } else {
        this.failed(first.candle, 'crashed', result.dead, first.market);
      }
      return [];
    }
    const out: (readonly StampedIntent[])[] = [];
    for (let i = 0; i < batch.length; i++) {
      const { market, candle } = batch[i] as Queued;
      const r = Array.isArray(result.results) ? (result.results[i] as Partial<ItemResult> | undefined) : undefined;
      // The guest's own stopwatch, bounded by the batch's: it is only a metric, and the guest is not trusted.
      const took = typeof r?.elapsedMs === 'number' && r.elapsedMs >= 0 && r.elapsedMs <= elapsedMs ? r.elapsedMs : elapsedMs / batch.length;
      this.events.onDuration?.({ strategy: name, market, elapsedMs: took });
      out.push(this.accept(market, candle, r));
    }
    return out;
  }

  /** One candle's answer from the guest: validated again here, stamped, counted. */
  private accept(market: MarketName, candle: Candle, r: Partial<ItemResult> | undefined): readonly StampedIntent[] {
    const name = this.loaded.name;
    if (r === undefined || r === null || typeof r !== 'object') return this.failed(candle, 'crashed', 'no answer for this candle in the guest\'s reply', market);
    if (r.failure !== undefined) return this.failed(candle, 'threw', String(r.failure).slice(0, 1000), market, typeof r.at === 'string' ? r.at.slice(0, 300) : undefined);
    const raw = fromWire(r.intents);
    if (Array.isArray(raw) && raw.length === 0) {
      this.stats.consecutiveFailures = 0;
      return EMPTY;
    }
    const checked = validateIntents(raw, this.markets);
    if (!checked.ok) return this.failed(candle, 'invalid_intents', checked.reason, market);
    this.stats.consecutiveFailures = 0;
    const identity = this.loaded.identity;
    const stamped = checked.intents.map((intent): StampedIntent => ({ strategy: name, interval: this.loaded.interval, candleTime: candle.time, intent, identity }));
    this.stats.intents += stamped.length;
    this.events.onIntents?.({ strategy: name, market, candleTime: candle.time, intents: stamped });
    return stamped;
  }

  /** One message to the guest, answered within `deadlineMs` or the thread is terminated. */
  private send(items: readonly CandleItem[], warm: boolean, deadlineMs: number): Promise<CallResult> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve({ dead: 'no thread' });
    const id = this.nextId++;
    return new Promise<CallResult>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ dead: 'overrun' });
        this.kill(worker);
      }, deadlineMs);
      timer.unref();
      if (this.pending.size === 0) worker.hold(true);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        if (this.pending.size === 0) worker.hold(false);
        resolve(r);
      });
      const message: ToGuest = { type: 'candles', id, interval: this.loaded.interval, nowMs: this.o.clock.nowMs(), items, warm };
      worker.post(message);
    });
  }

  private failed(candle: Candle | undefined, reason: 'threw' | 'overrun' | 'invalid_intents' | 'crashed', detail: string, market?: MarketName, at?: string): readonly StampedIntent[] {
    const name = this.loaded.name;
    const stats = this.stats;
    stats.errors++;
    stats.consecutiveFailures++;
    const candleTime = candle?.time ?? 0;
    const error = new StrategyFailedError(`strategy ${name}${market === undefined ? '' : ` on ${market}`}: ${reason}: ${detail}${at === undefined ? '' : ` (at ${at})`}`,
      { strategy: name, market, candleTime, reason, ...(at === undefined ? {} : { at }) });
    // One line per failure: the guest's own text (message once) and where in the strategy's files it
    // was thrown; no `err` (its stack would be this daemon's frames, not the strategy's).
    this.log.error({ strategy: name, market, candleTime, reason, at, error: detail }, 'strategy failed');
    this.events.onError?.({ strategy: name, market: market ?? '', candleTime, error, consecutiveFailures: stats.consecutiveFailures });
    const dead = reason === 'overrun' || reason === 'crashed';
    const giveUp = stats.consecutiveFailures >= this.maxFailures;
    if ((dead || giveUp) && !stats.paused) {
      stats.paused = true;
      this.log.warn({ strategy: name, consecutiveFailures: stats.consecutiveFailures, restarting: dead && !giveUp }, 'strategy paused');
      this.events.onPaused?.({ strategy: name, consecutiveFailures: stats.consecutiveFailures, error });
    }
    if (giveUp) {
      this.held = true;
      this.pausedAfter ??= { sinceMs: Date.now(), reason: error.message };
    }
    if (dead && !giveUp && !this.closed) this.restart(reason);
    return EMPTY;
  }

  /** A fresh thread, re-warmed with the candle history kept here; resumed unless it fails again. Not awaited by callers. */
  private restart(reason: string): void {
    if (this.restarting !== undefined || this.closed) return;
    this.stats.paused = true;
    this.events.onRestart?.({ strategy: this.loaded.name, reason });
    this.restarting = (async () => {
      const spawnFailure = await this.spawn();
      if (this.closed) return undefined;
      if (spawnFailure !== undefined) return this.failedDuringRestart(spawnFailure);
      const warmFailure = await this.warm();
      if (warmFailure !== undefined) return this.failedDuringRestart(`re-warm: ${warmFailure}`);
      this.restarting = undefined;
      if (!this.held) {
        this.stats.paused = false;
        this.log.info({ strategy: this.loaded.name }, 'strategy restarted in a fresh thread and re-warmed');
        this.events.onResumed?.({ strategy: this.loaded.name });
      }
      return undefined;
    })();
  }

  /** Replays the kept candle history to a fresh guest (intents discarded); why it failed, else undefined. */
  private async warm(): Promise<string | undefined> {
    for (const [market, ring] of this.rings) {
      const history = ring.toArray();
      if (history.length === 0) continue;
      const view = toWire({ balances: {}, openOrders: [], marketInfo: this.o.view?.marketInfo?.(market), events: [] });
      const items = history.map((candle): CandleItem => ({ market, candle: candleToWire(candle), view }));
      const r = await this.send(items, true, this.budgetMs * items.length);
      if ('dead' in r) return r.dead;
    }
    return undefined;
  }

  private failedDuringRestart(detail: string): void {
    this.restarting = undefined;
    this.stats.paused = false; // so failed() reports the pause again
    this.failed(undefined, 'crashed', detail);
  }

  /** Starts a guest (process or thread) and loads the module in it; resolves undefined when ready, else why not. */
  private spawn(): Promise<string | undefined> {
    const name = this.loaded.name;
    let started = false;
    let ready: (reason: string | undefined) => void = () => undefined;
    const loadedOrNot = new Promise<string | undefined>((resolve) => { ready = resolve; });
    const settle = (reason: string | undefined): void => {
      if (started) return;
      started = true;
      clearTimeout(timer);
      ready(reason);
    };
    const file = this.moduleFile();
    const channel: GuestChannel = openChannel({
      isolation: this.o.isolation ?? defaultIsolation(),
      heapMb: this.o.heapMb ?? DEFAULT_HEAP_MB,
      readable: file === undefined ? [this.o.dir] : strategyReadable(file),
      onMessage: (m) => {
        if (m === null || typeof m !== 'object') return;
        if (m.type === 'ready') return settle(undefined);
        if (m.type === 'load_failed') {
          settle(`module did not load: ${String(m.reason).slice(0, 2000)}`);
          this.kill(channel);
          return;
        }
        if (m.type === 'result') {
          const done = this.pending.get(m.id);
          this.pending.delete(m.id);
          done?.({ results: m.results });
          return;
        }
        if (m.type === 'log') this.guestLog(m);
      },
      onEnd: (reason) => {
        settle(`${reason} while loading`);
        this.onDeath(channel, reason);
      },
    });
    const timer = setTimeout(() => { if (!started) { settle('module did not load in time'); this.kill(channel); } }, this.o.startMs ?? 10_000);
    timer.unref();
    this.worker = channel;
    channel.hold(true);
    void loadedOrNot.then(() => { if (this.pending.size === 0) channel.hold(false); });
    const init: ToGuest = { type: 'init', dir: this.o.dir, file, name, config: toWire({ ...this.o.configFor(name), interval: this.loaded.interval }) };
    channel.post(init);
    return loadedOrNot;
  }

  /** The module in this host's directory (a kept version's copy, not the file it was described from). */
  private moduleFile(): string | undefined {
    const described = this.loaded.file;
    return described === undefined ? undefined : path.join(this.o.dir, path.basename(described));
  }

  /** A guest's log line, through the rate and size caps: the guest is not trusted with the daemon's log. */
  private guestLog(m: Extract<FromGuest, { type: 'log' }>): void {
    const name = this.loaded.name;
    const gate = this.logGate.offer();
    if (!gate.pass) return void this.events.onLogCapped?.({ strategy: name, reason: 'rate', lines: 1 });
    if (gate.droppedBefore > 0) {
      this.log.warn({ strategy: name, dropped: gate.droppedBefore, perSecond: this.o.logLinesPerSecond ?? GUEST_LOG_DEFAULTS.perSecond }, 'strategy log lines dropped over the rate cap');
    }
    const level = ['debug', 'info', 'warn', 'error'].includes(m.level) ? m.level : 'info';
    const market = typeof m.market === 'string' ? m.market.slice(0, 40) : undefined;
    const capped = capLogData(fromWire(m.obj), GUEST_LOG_DEFAULTS.maxChars);
    if (capped.cut) this.events.onLogCapped?.({ strategy: name, reason: 'size', lines: 1 });
    // warmup: a line written on a warm-up candle (intents discarded), so it is not read as trading.
    const log = this.log.child?.({ strategy: name, market, ...(m.warm === true ? { warmup: true } : {}) }) ?? this.log;
    log[level]({ guest: capped.data }, typeof m.msg === 'string' ? m.msg.slice(0, 500) : undefined);
  }

  /** The thread died on its own (process.exit, heap limit, uncaught error): pending calls fail as crashes. */
  private onDeath(worker: GuestChannel, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const resolve of pending) resolve({ dead: reason });
    if (pending.length === 0 && !this.closed && this.restarting === undefined && !this.stats.paused) this.failed(undefined, 'crashed', reason);
  }

  private kill(worker: GuestChannel): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.kill();
  }
}

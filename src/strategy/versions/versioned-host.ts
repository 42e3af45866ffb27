import type { Candle, Interval } from '../../domain/candle';
import type { MarketName } from '../../domain/market';
import type { StampedIntent } from '../intent-validation';
import type { OrderEvent } from '../order-feedback';
import type { StrategyConfig } from '../prepare-strategy';
import type { StrategyStats } from '../strategy-host';
import type { CandleDelivery, CandleHost, GuestHost, GuestStrategy } from '../guest/guest-host';
import type { Divergence } from './intent-diff';
import { ShadowRecord, type ShadowSummary } from './shadow-record';

export type VersionRole = 'live' | 'shadow';

/** A strategy's metadata with its version: the content hash of its module sources. */
export type VersionedStrategy = GuestStrategy & { readonly version: string };

/** One version of a strategy: its metadata, the directory its guest loads it from, its config overrides. */
export interface StrategyVersion {
  readonly strategy: VersionedStrategy;
  /** The strategy directory, or the kept copy of an older version's sources. */
  readonly dir: string;
  readonly config: StrategyConfig;
}

/** What the host of one version gets from here: its current role and its share of the order events. */
export interface SlotContext {
  role(): VersionRole;
  events(strategy: string, market: MarketName): readonly OrderEvent[];
}

export interface VersionedHostEvents {
  /** The live or shadow version of a strategy changed (start, reload, promotion, rollback). */
  onRoles?(e: { strategy: string; live: string; shadow: string | undefined; previous: readonly string[] }): void;
  /** Both versions answered one candle (the shadow's intents were recorded, never sent). */
  onCompared?(e: { strategy: string; market: MarketName; candleTime: number; divergences: readonly Divergence[]; shadowFailed: boolean; summary: ShadowSummary }): void;
}

export interface VersionedHostOptions {
  readonly live: readonly StrategyVersion[];
  /** Builds the (one-strategy) guest host of a version: the app wires its guests' options and events. */
  readonly hostFor: (v: StrategyVersion, ctx: SlotContext) => GuestHost;
  /** The one source of order events; it drains, so each candle's events are shared out to both versions here. */
  readonly takeEvents?: ((strategy: string, market: MarketName) => readonly OrderEvent[]) | undefined;
  readonly events?: VersionedHostEvents | undefined;
}

export interface VersionStatus {
  readonly strategy: string;
  readonly live: { readonly version: string; readonly markets: readonly string[]; readonly params: unknown };
  /** The live version is paused after repeated failures: since when (wall clock, ms) and the last failure (with file:line). */
  readonly paused?: { readonly sinceMs: number; readonly reason: string } | undefined;
  readonly shadow?: { readonly version: string; readonly markets: readonly string[]; readonly params: unknown; readonly summary: ShadowSummary } | undefined;
  /** Versions that were live before, newest first (what rollback returns to). */
  readonly previous: readonly string[];
}

class Slot {
  host!: GuestHost;
  /** Errors of this version's guest at the last comparison (a new one: it failed on that candle). */
  errorsSeen = 0;
  private readonly pending = new Map<MarketName, OrderEvent[]>();

  constructor(readonly version: StrategyVersion, public role: VersionRole) {}

  get id(): string {
    return this.version.strategy.version;
  }

  give(market: MarketName, events: readonly OrderEvent[]): void {
    if (events.length === 0) return;
    const list = this.pending.get(market);
    if (list === undefined) this.pending.set(market, [...events]);
    else {
      list.push(...events);
      // A paused version does not take its events: keep the newest only, so a shadow left paused stays small.
      if (list.length > MAX_PENDING_EVENTS) list.splice(0, list.length - MAX_PENDING_EVENTS);
    }
  }

  take(market: MarketName): readonly OrderEvent[] {
    const list = this.pending.get(market);
    if (list === undefined) return [];
    this.pending.delete(market);
    return list;
  }

  trades(market: MarketName, interval: Interval): boolean {
    return this.version.strategy.interval === interval && this.version.strategy.markets.includes(market);
  }
}

interface Entry {
  live: Slot;
  shadow: Slot | undefined;
  record: ShadowRecord;
  /** Versions live before, newest first. */
  previous: string[];
}

const EMPTY: readonly StampedIntent[] = Object.freeze([]);
const MAX_PENDING_EVENTS = 1000;

/**
 * Every strategy as a live version plus, after a reload that changed it, a shadow version, each in
 * its own guests (GuestHost). Both get every candle, the same open orders, position and events
 * (the view is the strategy's, not the version's); only the live version's intents are returned to
 * the flow. The shadow's are compared with them per candle (ShadowRecord) and dropped. promote()
 * swaps the two between candles: a candle already out stays with the host it went to, so no candle
 * is skipped or handled twice, and the old live version stays as the shadow for rollback().
 */
export class VersionedHost implements CandleHost {
  private readonly entries = new Map<string, Entry>();
  private readonly routes: { market: MarketName; interval: Interval }[] = [];

  constructor(private readonly o: VersionedHostOptions) {
    const seen = new Set<string>();
    for (const v of o.live) {
      const s = v.strategy;
      if (this.entries.has(s.name)) throw new RangeError(`strategy ${s.name} given twice to the host`);
      this.entries.set(s.name, { live: this.slot(v, 'live'), shadow: undefined, record: new ShadowRecord(), previous: [] });
      for (const market of s.markets) {
        const key = `${s.interval}|${market}`;
        if (!seen.has(key)) this.routes.push({ market, interval: s.interval });
        seen.add(key);
      }
    }
  }

  async start(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.live.host.start()));
    for (const name of this.entries.keys()) this.announce(name);
  }

  subscriptions(): { market: MarketName; interval: Interval }[] {
    return this.routes.map((r) => ({ ...r }));
  }

  /** Whether the daemon polls this (market, interval): a reloaded version may only trade what is polled. */
  polls(market: MarketName, interval: Interval): boolean {
    return this.routes.some((r) => r.market === market && r.interval === interval);
  }

  handleCandle(market: MarketName, interval: Interval, candle: Candle, delivery?: CandleDelivery): Promise<readonly StampedIntent[]> {
    const calls: Promise<readonly StampedIntent[]>[] = [];
    for (const [name, e] of this.entries) {
      const { live, shadow } = e;
      const liveTrades = live.trades(market, interval);
      const shadowTrades = shadow?.trades(market, interval) === true;
      if (!liveTrades && !shadowTrades) continue;
      const events = this.o.takeEvents?.(name, market) ?? [];
      live.give(market, events);
      shadow?.give(market, events);
      const fromLive = liveTrades ? Promise.resolve(live.host.handleCandle(market, interval, candle, delivery)) : Promise.resolve(EMPTY);
      if (shadow !== undefined) {
        const fromShadow = shadowTrades ? Promise.resolve(shadow.host.handleCandle(market, interval, candle, delivery)) : Promise.resolve(EMPTY);
        void Promise.all([fromLive, fromShadow]).then(([l, s]) => this.compare(name, e, shadow, market, candle.time, l, s));
      }
      calls.push(fromLive);
    }
    if (calls.length === 0) return Promise.resolve(EMPTY);
    return Promise.all(calls).then((all) => (all.length === 1 ? (all[0] as readonly StampedIntent[]) : all.flat()));
  }

  /**
   * Starts `v` as the shadow of its strategy: a fresh guest loads the module and is warmed with the
   * candles the live version's host kept. Resolves why it could not (the live version untouched),
   * or undefined once it runs; a shadow it replaces is stopped.
   */
  async stage(v: StrategyVersion): Promise<string | undefined> {
    const name = v.strategy.name;
    const e = this.entry(name);
    const slot = this.slot(v, 'shadow');
    const reason = await slot.host.startWarmed(() => e.live.host.history(name));
    if (reason !== undefined) {
      await slot.host.close();
      return reason;
    }
    const old = e.shadow;
    e.shadow = slot;
    e.record = new ShadowRecord();
    slot.errorsSeen = slot.host.stats(name).errors;
    if (old !== undefined) await old.host.close(); // an old live version stays in `previous`: rollback loads its kept sources
    this.announce(name);
    return undefined;
  }

  /**
   * Makes `version` live: the shadow becomes live, the live version its shadow (kept for rollback).
   * By target, not a toggle: asking for a version that is live and not the shadow changes nothing (a
   * replica's sync and a local promote of the same version cannot swap back and forth). Returns the
   * versions swapped.
   */
  promote(name: string, version: string): { from: string; to: string } {
    const e = this.entry(name);
    const next = e.shadow;
    // The shadow first: a params-only change runs the same code version with other parameters.
    if (next === undefined || next.id !== version) {
      if (e.live.id === version) return { from: version, to: version };
      throw new RangeError(`strategy ${name}: version ${version} is not its shadow`);
    }
    const from = e.live;
    e.live = next;
    e.shadow = from;
    next.role = 'live';
    from.role = 'shadow';
    e.previous = [from.id, ...e.previous.filter((p) => p !== from.id && p !== next.id)];
    e.record = new ShadowRecord();
    from.errorsSeen = from.host.stats(name).errors;
    this.announce(name);
    return { from: from.id, to: next.id };
  }

  /** Stops a strategy's shadow (after a rollback, or when the operator drops it). */
  async dropShadow(name: string): Promise<void> {
    const e = this.entry(name);
    const s = e.shadow;
    if (s === undefined) return;
    e.shadow = undefined;
    await s.host.close();
    this.announce(name);
  }

  /** The shadow's guest stats (errors, overruns, paused), undefined without a shadow. */
  shadowStats(name: string): StrategyStats | undefined {
    return this.entry(name).shadow?.host.stats(name);
  }

  live(name: string): StrategyVersion {
    return this.entry(name).live.version;
  }

  shadow(name: string): StrategyVersion | undefined {
    return this.entry(name).shadow?.version;
  }

  status(): VersionStatus[] {
    return [...this.entries].map(([name, e]) => ({
      strategy: name,
      live: { version: e.live.id, markets: e.live.version.strategy.markets, params: paramsOf(e.live.version) },
      ...pausedOf(e.live.host.pausedAfterFailures(name)),
      ...(e.shadow === undefined ? {} : {
        shadow: { version: e.shadow.id, markets: e.shadow.version.strategy.markets, params: paramsOf(e.shadow.version), summary: e.record.summary() },
      }),
      previous: [...e.previous],
    }));
  }

  pause(strategy: string): void {
    this.entry(strategy).live.host.pause(strategy);
  }

  resume(strategy: string): void {
    this.entry(strategy).live.host.resume(strategy);
  }

  isPaused(strategy: string): boolean {
    return this.entry(strategy).live.host.isPaused(strategy);
  }

  /** Since when and why the live version is paused after repeated failures (undefined: it is not). */
  pausedAfterFailures(strategy: string): { readonly sinceMs: number; readonly reason: string } | undefined {
    return this.entry(strategy).live.host.pausedAfterFailures(strategy);
  }

  stats(strategy: string): StrategyStats {
    return this.entry(strategy).live.host.stats(strategy);
  }

  strategyNames(): string[] {
    return [...this.entries.keys()];
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].flatMap((e) => [e.live.host.close(), e.shadow?.host.close()]));
  }

  private compare(name: string, e: Entry, shadow: Slot, market: MarketName, candleTime: number, live: readonly StampedIntent[], fromShadow: readonly StampedIntent[]): void {
    if (e.shadow !== shadow) return; // promoted or replaced while this candle was out
    const errors = shadow.host.stats(name).errors;
    const shadowFailed = errors > shadow.errorsSeen;
    shadow.errorsSeen = errors;
    const divergences = e.record.record(market, candleTime, live.map((x) => x.intent), fromShadow.map((x) => x.intent), shadowFailed);
    this.o.events?.onCompared?.({ strategy: name, market, candleTime, divergences, shadowFailed, summary: e.record.summary() });
  }

  private slot(v: StrategyVersion, role: VersionRole): Slot {
    const slot = new Slot(v, role);
    slot.host = this.o.hostFor(v, { role: () => slot.role, events: (_strategy, market) => slot.take(market) });
    return slot;
  }

  private announce(name: string): void {
    const e = this.entry(name);
    this.o.events?.onRoles?.({ strategy: name, live: e.live.id, shadow: e.shadow?.id, previous: [...e.previous] });
  }

  private entry(name: string): Entry {
    const e = this.entries.get(name);
    if (e === undefined) throw new RangeError(`unknown strategy ${name}`);
    return e;
  }
}

/** The resolved parameters (defaults applied, from the describing guest) when known, else the config's overrides. */
function paramsOf(v: StrategyVersion): unknown {
  const text = v.strategy.identity?.params;
  return text === undefined ? v.config.params ?? {} : JSON.parse(text) as unknown;
}

function pausedOf(p: { readonly sinceMs: number; readonly reason: string } | undefined): { paused?: { sinceMs: number; reason: string } } {
  return p === undefined ? {} : { paused: { sinceMs: p.sinceMs, reason: p.reason } };
}

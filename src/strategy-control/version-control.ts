import type { Clock } from '../core/clock';
import * as path from 'node:path';
import type { FrozenConfig } from '../config/load';
import type { StrategyLoadError } from '../domain/errors';
import type { Logger } from '../log/logger';
import type { StrategyConfig } from '../strategy/prepare-strategy';
import type { StrategyVersion, VersionedHost, VersionedStrategy } from '../strategy/versions/versioned-host';
import type { ControlReply, ControlRequest, PromotedVersion, StrategyControlStore } from './control-store';
import { abandonReason, droppedMarkets, type OpenOnMarkets } from './dropped-markets';
import { dropSnapshot, isKept, keep, keptDir, snapshot } from './kept-sources';
import { refusedChange } from './live-changes';

/** A described strategy (metadata from its throwaway guest) with its version and module file. */
export type DescribedVersion = VersionedStrategy & { readonly file: string };

export interface Described {
  readonly strategies: readonly DescribedVersion[];
  readonly errors: readonly StrategyLoadError[];
}

export interface Outcome {
  readonly ok: boolean;
  readonly message: string;
  /** Refused for want of a shadow or a previous version HERE: another replica may have one. */
  readonly elsewhere?: boolean | undefined;
}

export const VERSION_ACTIONS = ['reload', 'refused', 'promote', 'rollback', 'auto-promote', 'replica-promote'] as const;
export type VersionAction = (typeof VERSION_ACTIONS)[number];

export interface VersionControlOptions {
  readonly host: VersionedHost;
  readonly store: StrategyControlStore;
  /** The config the daemon runs with (updated by a reload that applied). */
  readonly config: FrozenConfig;
  /** Re-reads the config file and environment, validated (throws ConfigError naming the key). */
  readonly readConfig: () => FrozenConfig;
  /** The strategy directory a config names (absolute). */
  readonly strategyDir: (config: FrozenConfig) => string;
  /** Loads and validates every module of `dir` with the config, each in a throwaway guest, as at start-up. */
  readonly describe: (config: FrozenConfig, dir: string) => Promise<Described>;
  /** The per-strategy overrides a config gives (markets, params). */
  readonly configFor: (config: FrozenConfig, name: string) => StrategyConfig;
  readonly stateDir: string;
  /**
   * What a strategy has open per market (the journal's open orders, the portfolio's position): a
   * reload, promote or rollback to a version that drops a market with something open is refused.
   */
  readonly openOn: OpenOnMarkets;
  /** A reloaded version trades markets the live one did not: take their leases. */
  readonly wantMarkets?: ((strategy: string, markets: readonly string[]) => void) | undefined;
  readonly log: Logger;
  readonly clock: Clock;
  /** `strategy-resume` also lifts the strategy's guardrails (drawdown stop, cooldowns): their reasons, none when none was in force. */
  readonly liftGuards?: ((strategy: string) => readonly string[]) | undefined;
  /** Each change (or refusal) as it happened; a promote or rollback says from which version to which. */
  readonly onAction?: ((strategy: string, action: VersionAction, change?: { readonly from: string; readonly to: string }) => void) | undefined;
}

/**
 * `tradebot reload|promote|rollback` and SIGHUP on a running daemon, one at a time:
 * - reload: the config and the modules are read again (a copy of the strategy directory, described
 *   in throwaway guests exactly as at start-up); a changed strategy starts as a shadow; a broken one,
 *   an invalid param or market, a key that cannot change live, is refused with the reason, and the
 *   running version keeps trading;
 * - promote: the promoted version is stored durably FIRST (Redis, or an fsynced file), then the
 *   versions swap between two candles: a daemon killed in between comes back with the stored one;
 * - rollback: the version live before, the same way;
 * - sync (replicas sharing Redis): before each candle goes to the strategies, a version another
 *   replica promoted replaces this one's live version, or the strategy waits (paused) if its sources
 *   are not kept here.
 */
export class VersionControl {
  private config: FrozenConfig;
  private queue: Promise<unknown> = Promise.resolve();
  /** Strategies whose shadow came from a reload (auto-promotion applies to those, not to a kept old version). */
  private readonly candidates = new Set<string>();
  /** Strategies paused because the promoted version is not runnable here. */
  private readonly waiting = new Set<string>();
  /** Strategies this daemon is promoting right now (stored, not yet swapped): sync leaves them alone. */
  private readonly swapping = new Set<string>();

  constructor(private readonly o: VersionControlOptions) {
    this.config = o.config;
  }

  /** Serialised: a second command waits for the first. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }

  handle(request: ControlRequest): Promise<ControlReply & { readonly elsewhere?: boolean | undefined }> {
    const run = async (): Promise<Outcome> => {
      if (request.command === 'reload') return this.reload(request.strategy, `tradebot reload (${request.id})`);
      // Orders are not versions: the daemon's order canceller answers cancel requests before they get here.
      if (request.command === 'cancel') return { ok: false, message: 'cancel is not a strategy version change' };
      if (request.strategy === undefined) return { ok: false, message: `${request.command} needs a strategy name` };
      if (request.command === 'resume') return this.resume(request.strategy, `tradebot strategy-resume (${request.id})`);
      return request.command === 'promote' ? this.promote(request.strategy, 'promote') : this.rollback(request.strategy);
    };
    return run().then(
      (o) => ({ id: request.id, ok: o.ok, message: o.message, atMs: this.o.clock.nowMs(), elsewhere: o.elsewhere }),
      (err: unknown) => ({ id: request.id, ok: false, message: `failed: ${err instanceof Error ? err.message : String(err)}`, atMs: this.o.clock.nowMs() }),
    );
  }

  reload(only: string | undefined, source: string): Promise<Outcome> {
    return this.serial(() => this.reloadNow(only, source));
  }

  promote(name: string, by: 'promote' | 'auto-promote'): Promise<Outcome> {
    return this.serial(() => this.promoteNow(name, by));
  }

  rollback(name: string): Promise<Outcome> {
    return this.serial(() => this.rollbackNow(name));
  }

  /** Auto-promotion check after each compared candle (strategies.shadowCandles > 0). */
  shadowClean(name: string, cleanCandles: number): void {
    const needed = this.config.strategies.shadowCandles;
    if (needed <= 0 || cleanCandles < needed || !this.candidates.has(name)) return;
    this.candidates.delete(name);
    void this.promote(name, 'auto-promote');
  }

  private async reloadNow(only: string | undefined, source: string): Promise<Outcome> {
    const host = this.o.host;
    if (only !== undefined && !host.strategyNames().includes(only)) return this.refuse(only, source, `unknown strategy ${only} (running: ${host.strategyNames().join(', ')})`);
    let next: FrozenConfig;
    try {
      next = this.o.readConfig();
    } catch (err) {
      return this.refuse(only, source, `config not valid: ${err instanceof Error ? err.message : String(err)}`);
    }
    const refused = refusedChange(this.config, next);
    if (refused !== undefined) return this.refuse(only, source, refused.reason, refused.key);
    const copy = snapshot(this.o.strategyDir(next), this.o.stateDir);
    try {
      const described = await this.o.describe(next, copy);
      const results: Outcome[] = [];
      // Messages name the strategy directory the author edits, not the copy that was read.
      const errors = described.errors.map((e) => Object.assign(Object.create(Object.getPrototypeOf(e) as object) as StrategyLoadError, e, { message: e.message.split(copy).join(this.o.strategyDir(next)) }));
      for (const name of only === undefined ? host.strategyNames() : [only]) results.push(await this.reloadOne(name, next, copy, { ...described, errors }, source));
      this.config = next;
      return { ok: results.every((r) => r.ok), message: results.map((r) => r.message).join('\n') };
    } finally {
      dropSnapshot(copy);
    }
  }

  private async reloadOne(name: string, next: FrozenConfig, copy: string, described: Described, source: string): Promise<Outcome> {
    const host = this.o.host;
    const live = host.live(name);
    const liveFile = path.basename((live.strategy as Partial<DescribedVersion>).file ?? '');
    const found = described.strategies.find((s) => s.name === name);
    const mine = described.errors.filter((e) => e.context['strategy'] === name || (liveFile !== '' && path.basename(String(e.context['file'] ?? '')) === liveFile));
    if (found === undefined || mine.some((e) => e.context['param'] !== undefined || e.context['field'] !== undefined)) {
      const loadErrors = mine.filter((e) => e.context['reason'] !== 'unknown');
      const why = (loadErrors.length > 0 ? loadErrors : mine.length > 0 ? mine : described.errors).map((e) => e.message).join('; ') || `no module defines ${name} any more`;
      return this.refuse(name, source, why);
    }
    const index = next.strategies.enabled.findIndex((e) => e.name === name);
    const unpolled = found.markets.filter((m) => !host.polls(m, found.interval));
    if (unpolled.length > 0) {
      return this.refuse(name, source, `strategies.enabled[${index}].markets: ${unpolled.join(', ')} not polled by this daemon at ${found.interval} (markets are subscribed at start-up): restart it to add a market`, `strategies.enabled[${index}].markets`);
    }
    const config = this.o.configFor(next, name);
    const candidate = { strategy: found, config };
    const shadow = host.shadow(name);
    if (sameVersion(candidate, live)) return this.note(name, `${name}: unchanged (version ${live.strategy.version})`);
    if (shadow !== undefined && sameVersion(candidate, shadow) && this.candidates.has(name)) return this.note(name, `${name}: version ${found.version} already runs as the shadow`);
    const abandons = await this.abandons(name, live.strategy, found, source);
    if (abandons !== undefined) return abandons;
    // Pin the live version first (when nothing is stored yet): a restart from here on runs it, and
    // the edited module on disk comes back as its shadow rather than going live unchecked.
    const stored = await this.o.store.readPromoted();
    if (stored[name] === undefined) await this.o.store.writePromoted(name, { version: live.strategy.version, atMs: this.o.clock.nowMs(), by: 'reload' });
    const dir = keep(copy, this.o.stateDir, name, found.version);
    const started = performance.now();
    const reason = await host.stage({ strategy: found, dir, config });
    if (reason !== undefined) return this.refuse(name, source, `new version ${found.version} did not start: ${reason}`);
    this.candidates.add(name);
    this.o.wantMarkets?.(name, found.markets);
    const ms = Math.round(performance.now() - started);
    this.o.log.warn({ strategy: name, live: live.strategy.version, shadow: found.version, params: config.params, markets: found.markets, source, startMs: ms }, 'strategy reloaded: new version runs as a shadow (its intents are recorded, not sent)');
    this.o.onAction?.(name, 'reload');
    return { ok: true, message: `${name}: version ${found.version} runs as the shadow of ${live.strategy.version} (started and warmed in ${ms} ms); \`tradebot shadow ${name}\` shows where they differ, \`tradebot promote ${name}\` makes it live` };
  }

  private async promoteNow(name: string, by: 'promote' | 'auto-promote'): Promise<Outcome> {
    const host = this.o.host;
    if (!host.strategyNames().includes(name)) return this.refuse(name, by, `unknown strategy ${name}`);
    const shadow = host.shadow(name);
    if (shadow === undefined) return { ...this.refuse(name, by, `${name} has no shadow version to promote (reload first)`), elsewhere: true };
    if (host.shadowStats(name)?.paused === true) return this.refuse(name, by, `the shadow version ${shadow.strategy.version} of ${name} is paused after failures (tradebot_strategy_shadow_errors_total): fix it and reload`);
    return this.swap(name, shadow.strategy.version, by);
  }

  private async rollbackNow(name: string): Promise<Outcome> {
    const host = this.o.host;
    if (!host.strategyNames().includes(name)) return this.refuse(name, 'rollback', `unknown strategy ${name}`);
    const before = host.status().find((s) => s.strategy === name)?.previous[0];
    if (before === undefined) return { ...this.refuse(name, 'rollback', `${name} has no previous version to roll back to`), elsewhere: true };
    if (host.shadow(name)?.strategy.version !== before) {
      const staged = await this.stageKept(name, before);
      if (staged !== undefined) return this.refuse(name, 'rollback', `previous version ${before} cannot run: ${staged}`);
    }
    return this.swap(name, before, 'rollback');
  }

  /** Stores the version first (durable), then swaps; a store failure leaves everything as it was. */
  private async swap(name: string, version: string, by: PromotedVersion['by']): Promise<Outcome> {
    const live = this.o.host.live(name).strategy;
    const from = live.version;
    // What is open is read now, not at the reload: orders and positions change in between.
    const target = this.o.host.shadow(name)?.strategy;
    if (target !== undefined && target.version === version) {
      const abandons = await this.abandons(name, live, target, by);
      if (abandons !== undefined) return abandons;
    }
    this.swapping.add(name);
    try {
      await this.o.store.writePromoted(name, { version, atMs: this.o.clock.nowMs(), by });
    } catch (err) {
      return this.refuse(name, by, `the promoted version could not be stored (${err instanceof Error ? err.message : String(err)}): nothing changed`);
    } finally {
      this.swapping.delete(name);
    }
    this.o.host.promote(name, version);
    this.candidates.delete(name);
    this.o.log.warn({ strategy: name, from, to: version, by }, by === 'rollback' ? 'strategy rolled back' : 'strategy version promoted');
    this.o.onAction?.(name, by === 'rollback' ? 'rollback' : by, { from, to: version });
    return { ok: true, message: `${name}: ${by === 'rollback' ? 'rolled back' : 'promoted'}: version ${version} is live (was ${from}; it stays as the shadow until the next reload, for \`tradebot ${by === 'rollback' ? 'promote' : 'rollback'} ${name}\`)` };
  }

  /**
   * Replicas: the versions stored by promote/rollback (on any daemon) win over this one's live
   * version; run before each candle goes to the strategies, so a promotion on one replica is
   * applied here before this one trades that strategy again.
   */
  async sync(): Promise<void> {
    // Not queued behind a reload (its throwaway guests take a while): candles must not wait for it.
    const promoted = await this.o.store.readPromoted();
    for (const name of this.o.host.strategyNames()) {
      const want = promoted[name]?.version;
      if (this.swapping.has(name)) continue;
      if (want === undefined || want === this.o.host.live(name).strategy.version) {
        if (this.waiting.delete(name)) this.o.host.resume(name);
        continue;
      }
      if (this.o.host.shadow(name)?.strategy.version !== want) {
        // Load it from the kept sources, in the command queue (a reload may be staging right now).
        await this.serial(async () => {
          if (this.o.host.shadow(name)?.strategy.version === want) return;
          const why = await this.stageKept(name, want);
          if (why === undefined || this.waiting.has(name)) return;
          this.waiting.add(name);
          this.o.host.pause(name);
          this.o.log.error({ strategy: name, promoted: want, live: this.o.host.live(name).strategy.version, reason: why }, 'another daemon promoted a version this one cannot run: strategy paused here until it can (reload with that module)');
        });
        if (this.o.host.shadow(name)?.strategy.version !== want) continue;
      }
      const from = this.o.host.live(name).strategy.version;
      this.o.host.promote(name, want);
      this.candidates.delete(name);
      if (this.waiting.delete(name)) this.o.host.resume(name);
      this.o.log.warn({ strategy: name, from, to: want }, 'strategy version promoted by another daemon: applied here before its next candle');
      this.o.onAction?.(name, 'replica-promote', { from, to: want });
    }
  }

  /** A kept older version started as the shadow (rollback after the shadow was replaced, replicas, restarts). */
  async stageKept(name: string, version: string): Promise<string | undefined> {
    if (!isKept(this.o.stateDir, name, version)) return `its sources are not kept in ${path.join(this.o.stateDir, 'versions', name)}`;
    const dir = keptDir(this.o.stateDir, name, version);
    const described = await this.o.describe(this.config, dir);
    const found = described.strategies.find((s) => s.name === name);
    if (found === undefined) return described.errors.map((e) => e.message).join('; ') || `no module in ${dir} defines ${name}`;
    return this.o.host.stage({ strategy: found, dir, config: this.o.configFor(this.config, name) });
  }

  /**
   * Reload never abandons: `to` no longer trading a market where the strategy has open orders or a
   * position is refused (the refusal names them); markets dropped with nothing open are accepted, and
   * the log says so. docs/strategies.md "Changing a running strategy".
   */
  private async abandons(name: string, from: VersionedStrategy, to: VersionedStrategy, source: string): Promise<Outcome | undefined> {
    const dropped = droppedMarkets(from.markets, to.markets);
    if (dropped.length === 0) return undefined;
    let open: Awaited<ReturnType<OpenOnMarkets>>;
    try {
      open = await this.o.openOn(name, dropped);
    } catch (err) {
      // Not judged blind: a journal that cannot be read refuses the change (retry once it is back).
      return this.refuse(name, source, `version ${to.version} no longer trades ${dropped.join(', ')} and what ${name} has open there could not be read (${err instanceof Error ? err.message : String(err)}): try again`, undefined, { dropped });
    }
    const reason = abandonReason(name, to.version, open);
    if (reason !== undefined) return this.refuse(name, source, reason, undefined, { dropped, open });
    this.o.log.warn({ strategy: name, from: from.version, to: to.version, dropped, source }, 'strategy version drops market(s) with nothing open there: accepted');
    return undefined;
  }

  private note(name: string, message: string): Outcome {
    this.o.log.info({ strategy: name }, message);
    return { ok: true, message };
  }

  /**
   * Resumes the live version of a strategy paused after repeated failures (its guest takes candles
   * again, its failure count cleared). Not queued behind a reload: it only lifts the pause. A
   * strategy that is not paused is left as it is, and the reply says so.
   */
  private resume(name: string, source: string): Promise<Outcome> {
    const host = this.o.host;
    if (!host.strategyNames().includes(name)) return Promise.resolve(this.refuse(name, source, `unknown strategy ${name} (running: ${host.strategyNames().join(', ')})`));
    const paused = host.pausedAfterFailures(name);
    const lifted = this.o.liftGuards?.(name) ?? [];
    const guardText = lifted.length === 0 ? '' : `; guardrails lifted: ${lifted.join('; ')}`;
    if (lifted.length > 0) this.o.log.warn({ strategy: name, source, lifted }, 'strategy guardrails lifted by the operator');
    if (!host.isPaused(name)) return Promise.resolve({ ok: true, message: lifted.length === 0 ? `${name} is not paused: nothing to resume` : `${name}${guardText.slice(1)}` });
    host.resume(name);
    this.o.log.warn({ strategy: name, source, was: paused }, 'strategy resumed by the operator');
    const was = paused === undefined ? '' : ` (paused since ${new Date(paused.sinceMs).toISOString()}: ${paused.reason})`;
    const now = host.isPaused(name) ? ': its guest is restarting and re-warming, it takes candles once that is done' : ': it takes the next candle';
    return Promise.resolve({ ok: true, message: `${name}: resumed, version ${host.live(name).strategy.version}${was}${now}${guardText}` });
  }

  private refuse(name: string | undefined, source: string, reason: string, key?: string, detail?: Readonly<Record<string, unknown>>): Outcome {
    this.o.log.error({ ...detail, strategy: name, source, key, reason }, 'strategy change refused: the running version keeps trading');
    this.o.onAction?.(name ?? '', 'refused');
    return { ok: false, message: `refused${name === undefined ? '' : ` (${name})`}: ${reason}` };
  }
}

function sameVersion(a: Pick<StrategyVersion, 'strategy' | 'config'>, b: Pick<StrategyVersion, 'strategy' | 'config'>): boolean {
  return a.strategy.version === b.strategy.version
    && JSON.stringify(a.strategy.markets) === JSON.stringify(b.strategy.markets)
    && paramsOf(a) === paramsOf(b);
}

/** The resolved parameters (defaults applied) when the describing guest gave them, else the config's overrides. */
function paramsOf(v: Pick<StrategyVersion, 'strategy' | 'config'>): string {
  return v.strategy.identity?.params ?? JSON.stringify(v.config.params ?? {});
}

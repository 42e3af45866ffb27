import type { DaemonContext } from './daemon-context';
import type { Logger } from '../log/logger';
import type { GuardStateStore } from '../store/guard-state-store';
import type { GuardLatch, ReleaseCause } from '../risk/guardrails/guard-latch';
import type { GuardObserver, Guardrails } from '../risk/guardrails/guardrails';
import { parseGuardSnapshot } from '../risk/guardrails/guard-snapshot';
import { guardsFor, type GuardrailSettings } from '../risk/guardrails/guard-rules';

/**
 * The daemon's side of the guardrails: a trip and a lift are logged (warn: someone acts on them),
 * counted, shown on `tradebot_risk_guard_active`, and told as a `guardrail` event (notifications, the
 * console); every change of their state is saved, so a restart keeps the peaks, the losses and the
 * stops in force.
 *
 * Only a replica that trades (holds a lease) speaks and writes: a warm standby's guardrails mark
 * its own portfolio, which is not what the account did (it traded nothing), so its view could announce
 * trips that did not happen and, written over the active's, forget a stop in force. A standby that takes its first lease reads the
 * state the active one saved before it trades (`takeOver`).
 */
export class GuardPersistence {
  /** Trading opened: a lease taken from now on is a takeover (the first ones, at start, follow the start's read). */
  private opened = false;
  private readonly saver: { save(): void };

  constructor(
    private readonly ctx: DaemonContext, private readonly store: GuardStateStore, private readonly guards: () => Guardrails | undefined,
    private readonly log: Logger, private readonly trades: () => boolean,
  ) {
    this.saver = snapshotSaver(store, guards, log, trades);
  }

  observer(): GuardObserver {
    const m = this.ctx.metrics;
    return {
      tripped: (l) => {
        if (!this.trades()) return;
        m.riskGuardTrips.inc({ guard: l.guard, scope: l.scope });
        m.riskGuardActive.set({ guard: l.guard, scope: l.scope }, 1);
        this.log.warn({ guard: l.guard, scope: l.scope, action: l.action, atMs: l.sinceMs, until: l.untilMs === undefined ? 'operator' : new Date(l.untilMs).toISOString(), reason: l.reason }, 'guardrail tripped');
        this.event('tripped', l);
      },
      released: (l, by) => {
        if (!this.trades()) return;
        m.riskGuardActive.set({ guard: l.guard, scope: l.scope }, 0);
        this.log.warn({ guard: l.guard, scope: l.scope, by, reason: l.reason }, 'guardrail lifted');
        this.event('lifted', l, by);
      },
      measured: (scope, equity, drawdown) => {
        if (!this.trades()) return;
        m.riskEquity.set({ scope }, equity.toNumber());
        m.riskDrawdown.set({ scope }, drawdown.toNumber());
      },
      changed: () => this.saver.save(),
    };
  }

  /** The state an earlier run saved, before the first candle; an unreadable one is an error, never a silent fresh start. */
  async restore(why: 'start' | 'takeover'): Promise<void> {
    const guards = this.guards();
    if (guards === undefined) return;
    const json = await this.store.load();
    if (json === undefined) return;
    guards.restore(parseGuardSnapshot(json));
    const latches = guards.latches();
    for (const l of latches) {
      this.ctx.metrics.riskGuardActive.set({ guard: l.guard, scope: l.scope }, 1);
      this.log.warn({ guard: l.guard, scope: l.scope, since: new Date(l.sinceMs).toISOString(), reason: l.reason }, why === 'start' ? 'guardrail still in force from before the restart' : 'guardrail in force, taken over from the replica that traded');
    }
    this.log.info({ inForce: latches.length, why }, 'guardrail state restored');
  }

  /** Trading is open (after the first reconciliation and the start's leases). */
  open(): void {
    this.opened = true;
  }

  /** This replica took its first lease after trading opened: trade under the state the replica that traded saved. */
  takeOver(): void {
    if (!this.opened) return;
    this.restore('takeover').catch((err: unknown) => this.log.error({ err }, 'guardrail state not read at takeover: this replica trades on its own view of the peaks and stops'));
  }

  private event(state: 'tripped' | 'lifted', l: GuardLatch, by?: ReleaseCause): void {
    const atMs = this.ctx.wallClock.nowMs();
    // The trip's market time names it: replicas that see the same trip give it the same id.
    this.ctx.events.emit({
      type: 'guardrail', id: `guard:${state}:${l.guard}:${l.scope}:${l.rule}:${l.sinceMs}`, atMs, state, guard: l.guard, scope: l.scope, action: l.action, reason: l.reason,
      ...(l.untilMs === undefined ? {} : { untilMs: l.untilMs }), ...(by === undefined ? {} : { by }),
    });
  }
}

/**
 * Zero series from the start for every configured guard (a dashboard shows 0, not "no data", and
 * `increase()` sees the first trip): the account's and each strategy's.
 */
export function zeroGuardSeries(m: DaemonContext['metrics'], settings: GuardrailSettings, strategies: readonly string[]): void {
  const zero = (guard: 'account_drawdown' | 'strategy_drawdown' | 'cooldown', scope: string): void => {
    m.riskGuardActive.set({ guard, scope }, 0);
    m.riskGuardTrips.inc({ guard, scope }, 0);
  };
  const measured = (scope: string): void => {
    m.riskEquity.set({ scope }, 0);
    m.riskDrawdown.set({ scope }, 0);
  };
  if (settings.account.drawdown.length > 0) {
    zero('account_drawdown', 'account');
    measured('account');
  }
  for (const name of strategies) {
    const g = guardsFor(settings, name);
    if (g.drawdown.length > 0) {
      zero('strategy_drawdown', name);
      measured(name);
    }
    if (g.cooldown.some((r) => r.scope === 'strategy')) zero('cooldown', name);
  }
}

/**
 * Saves the snapshot after a change (a replica holding a lease only), one write at a time; changes during a write are saved by one more
 * write after it (the latest state, never an older one last).
 */
function snapshotSaver(store: GuardStateStore, guards: () => Guardrails | undefined, log: Logger, trades: () => boolean): { save(): void } {
  let writing = false;
  let again = false;
  const run = (): void => {
    const g = guards();
    // Only a replica that trades writes: a warm standby's view is its own portfolio, not what the
    // account did, and written over the active's it could forget a stop in force.
    if (g === undefined || !trades()) return;
    writing = true;
    again = false;
    store.save(JSON.stringify(g.snapshot()))
      .catch((err: unknown) => log.error({ err }, 'guardrail state not saved: a restart now would forget the latest peaks and stops'))
      .finally(() => {
        writing = false;
        if (again) run();
      });
  };
  return { save: () => (writing ? (again = true) : run()) };
}

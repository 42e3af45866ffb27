import type { DaemonContext } from './daemon-context';
import type { Logger } from '../log/logger';
import type { GuardStateStore } from '../store/guard-state-store';
import type { GuardLatch, ReleaseCause } from '../risk/guardrails/guard-latch';
import type { GuardObserver, Guardrails, GuardSnapshot } from '../risk/guardrails/guardrails';
import { parseGuardSnapshot } from '../risk/guardrails/guard-snapshot';
import { guardsFor, type GuardrailSettings } from '../risk/guardrails/guard-rules';

/**
 * The daemon's watchers of the guardrails: a trip and a lift are logged (warn: someone acts on them),
 * counted, shown on `tradebot_risk_guard_active`, and told as a `guardrail` event (notifications, the
 * console); every change of their state is saved, so a restart keeps the peaks, the losses and the
 * stops in force. `guards` is read through the getter: the observer exists before the kernel does.
 */
export function guardObserver(ctx: DaemonContext, store: GuardStateStore, guards: () => Guardrails | undefined, log: Logger): GuardObserver {
  const m = ctx.metrics;
  const saver = snapshotSaver(store, guards, log);
  const event = (state: 'tripped' | 'lifted', l: GuardLatch, by?: ReleaseCause): void => {
    const atMs = ctx.wallClock.nowMs();
    // The trip's market time names it: replicas that see the same trip give it the same id.
    ctx.events.emit({
      type: 'guardrail', id: `guard:${state}:${l.guard}:${l.scope}:${l.rule}:${l.sinceMs}`, atMs, state, guard: l.guard, scope: l.scope, action: l.action, reason: l.reason,
      ...(l.untilMs === undefined ? {} : { untilMs: l.untilMs }), ...(by === undefined ? {} : { by }),
    });
  };
  return {
    tripped: (l) => {
      m.riskGuardTrips.inc({ guard: l.guard, scope: l.scope });
      m.riskGuardActive.set({ guard: l.guard, scope: l.scope }, 1);
      log.warn({ guard: l.guard, scope: l.scope, action: l.action, atMs: l.sinceMs, until: l.untilMs === undefined ? 'operator' : new Date(l.untilMs).toISOString(), reason: l.reason }, 'guardrail tripped');
      event('tripped', l);
    },
    released: (l, by) => {
      m.riskGuardActive.set({ guard: l.guard, scope: l.scope }, 0);
      log.warn({ guard: l.guard, scope: l.scope, by, reason: l.reason }, 'guardrail lifted');
      event('lifted', l, by);
    },
    measured: (scope, equity, drawdown) => {
      m.riskEquity.set({ scope }, equity.toNumber());
      m.riskDrawdown.set({ scope }, drawdown.toNumber());
    },
    changed: () => saver.save(),
  };
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
 * Saves the snapshot after a change, one write at a time; changes during a write are saved by one more
 * write after it (the latest state, never an older one last).
 */
function snapshotSaver(store: GuardStateStore, guards: () => Guardrails | undefined, log: Logger): { save(): void } {
  let writing = false;
  let again = false;
  const run = (): void => {
    const g = guards();
    if (g === undefined) return;
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

/** The state an earlier run saved, restored before the first candle; an unreadable one is an error, never a silent fresh start. */
export async function restoreGuards(guards: Guardrails | undefined, store: GuardStateStore, log: Logger): Promise<void> {
  if (guards === undefined) return;
  const json = await store.load();
  if (json === undefined) return;
  const snapshot: GuardSnapshot = parseGuardSnapshot(json);
  guards.restore(snapshot);
  const latches = guards.latches();
  for (const l of latches) log.warn({ guard: l.guard, scope: l.scope, since: new Date(l.sinceMs).toISOString(), reason: l.reason }, 'guardrail still in force from before the restart');
  log.info({ inForce: latches.length }, 'guardrail state restored');
}

import type { TradingState } from '../trading-state/trading-state';
import { REPLICA_ALIVE_MS, type ReplicaReport, type StoredPosition, type TradingStateStore } from '../trading-state/trading-state-store';

/** Exit code when the state was stored but no daemon (or not every running replica) confirmed it in time. */
export const EXIT_NOT_CONFIRMED = 2;

export interface TradingStateOutcome {
  /** 0 applied by every running replica, EXIT_NOT_CONFIRMED stored but not (all) confirmed. */
  readonly code: number;
  readonly text: string;
  readonly seq: number;
  readonly confirmed: readonly ReplicaReport[];
  readonly pending: readonly ReplicaReport[];
}

/**
 * Stores the operator's trading state (the store gives the record its sequence number), then waits
 * until every daemon replica seen alive reports it applied that record, at most `waitMs`. The one
 * way the CLI and the console change the state.
 */
export async function changeTradingState(store: TradingStateStore, change: { readonly state: TradingState; readonly reason: string; readonly waitMs: number; readonly where: string }): Promise<TradingStateOutcome> {
  const position = await store.write({ state: change.state, reason: change.reason, atMs: Date.now() });
  const stored = `trading state -> ${change.state} stored (seq ${position.seq}, ${change.where})`;
  if (change.waitMs === 0) return { code: 0, text: `${stored}; not waiting for the daemon (--wait-seconds 0)`, seq: position.seq, confirmed: [], pending: [] };
  const wait = await waitForReplicas(store, position, change.waitMs);
  return { ...describeWait(stored, change.state, position, wait, change.waitMs), seq: position.seq, confirmed: wait.confirmed, pending: wait.pending };
}

interface WaitResult {
  /** Replicas alive at the end, split by whether they applied the record (or a later one). */
  readonly confirmed: readonly ReplicaReport[];
  readonly pending: readonly ReplicaReport[];
  readonly elapsedMs: number;
}

/** Polls the replicas' reports until every alive one applied `position` (and at least one is alive), or the time is up. */
async function waitForReplicas(store: TradingStateStore, position: StoredPosition, waitMs: number): Promise<WaitResult> {
  const started = Date.now();
  for (;;) {
    const alive = (await store.readReplicas()).filter((r) => r.ageMs <= REPLICA_ALIVE_MS);
    const applied = (r: ReplicaReport): boolean => r.epoch === position.epoch && r.appliedSeq >= position.seq;
    const confirmed = alive.filter(applied);
    const pending = alive.filter((r) => !applied(r));
    const elapsedMs = Date.now() - started;
    if ((confirmed.length > 0 && pending.length === 0) || elapsedMs >= waitMs) return { confirmed, pending, elapsedMs };
    await new Promise((r) => setTimeout(r, 200));
  }
}

function describeWait(stored: string, state: TradingState, position: StoredPosition, wait: WaitResult, waitMs: number): { code: number; text: string } {
  const seconds = waitMs / 1000;
  const line = (r: ReplicaReport): string => `  ${r.instance}: applied seq ${r.appliedSeq}, now ${r.state}`;
  if (wait.confirmed.length === 0 && wait.pending.length === 0) {
    return { code: EXIT_NOT_CONFIRMED, text: `${stored}, but the daemon did not confirm within ${seconds} s: no daemon reported with this config (is one running?). The state stays stored and applies when a daemon starts.` };
  }
  if (wait.pending.length > 0) {
    return {
      code: EXIT_NOT_CONFIRMED,
      text: [`${stored}, but the daemon did not confirm within ${seconds} s: ${wait.pending.length} running replica(s) did not apply it:`, ...wait.pending.map(line),
        ...(wait.confirmed.length > 0 ? ['applied by:', ...wait.confirmed.map(line)] : [])].join('\n'),
    };
  }
  // Applied, but a later record (another operator, an automatic halt) may have replaced it since.
  const other = wait.confirmed.filter((r) => r.state !== state);
  if (other.length > 0) {
    return {
      code: EXIT_NOT_CONFIRMED,
      text: [`${stored}; applied, but a later change (seq > ${position.seq}) superseded it on:`, ...other.map(line), 'see `tradebot status`'].join('\n'),
    };
  }
  const count = wait.confirmed.length;
  return { code: 0, text: [`${stored}: applied by ${count} running replica${count === 1 ? '' : 's'} within ${(wait.elapsedMs / 1000).toFixed(1)} s`, ...wait.confirmed.map(line)].join('\n') };
}

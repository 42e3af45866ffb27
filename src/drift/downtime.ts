import { runsOverlapping, type DaemonRun } from '../store/deployment-log-port';

/** A stretch of market time in which no daemon run was alive: its candles were never seen live. */
export interface DowntimeWindow {
  readonly fromMarketMs: number;
  readonly toMarketMs: number;
  /** How the window's start is known: a clean stop record, or the last heartbeat of a run that left none (SIGKILL, crash). */
  readonly startedBy: 'stop' | 'last-heartbeat' | 'before-first-run';
}

/**
 * The downtime windows inside [from, to] from the runs' own records. A run ends at its stop record,
 * or, when it has none (killed), at its last heartbeat: the daemon may have lived up to one
 * heartbeat longer, so a candle closing in that margin counts as down only if the daemon recorded
 * nothing for it (the caller checks the candle log first). Overlapping runs (replicas) merge.
 */
export function downtimeWindows(runs: readonly DaemonRun[], fromMarketMs: number, toMarketMs: number): DowntimeWindow[] {
  const sorted = [...runs].sort((a, b) => a.startedMarketMs - b.startedMarketMs);
  const out: DowntimeWindow[] = [];
  let aliveUntil = fromMarketMs;
  let endedBy: DowntimeWindow['startedBy'] = 'before-first-run';
  for (const run of sorted) {
    if (run.startedMarketMs > aliveUntil) out.push({ fromMarketMs: aliveUntil, toMarketMs: Math.min(run.startedMarketMs, toMarketMs), startedBy: endedBy });
    const end = run.stoppedMarketMs ?? run.lastSeenMarketMs;
    if (end > aliveUntil) {
      aliveUntil = end;
      endedBy = run.stoppedMarketMs === undefined ? 'last-heartbeat' : 'stop';
    }
    if (aliveUntil >= toMarketMs) break;
  }
  // The newest run is alive up to its last heartbeat; past it the window's end is open (it may still run).
  const newest = sorted[sorted.length - 1];
  if (aliveUntil < toMarketMs && (newest === undefined || newest.stoppedMarketMs !== undefined)) {
    out.push({ fromMarketMs: aliveUntil, toMarketMs, startedBy: endedBy });
  }
  return out.filter((w) => w.toMarketMs > w.fromMarketMs && w.toMarketMs > fromMarketMs && w.fromMarketMs < toMarketMs);
}

export function inDowntime(windows: readonly DowntimeWindow[], marketMs: number): boolean {
  return windows.some((w) => marketMs > w.fromMarketMs && marketMs < w.toMarketMs);
}

/** The run alive at `atMs` (runsOverlapping's rule: the newest without a stop mark is alive from its start on). */
export function runAliveAt(runs: readonly DaemonRun[], atMs: number): DaemonRun | undefined {
  return runsOverlapping(runs, atMs, atMs)[0];
}

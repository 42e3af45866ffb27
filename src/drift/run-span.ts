import { BacktestInputError } from '../domain/errors';
import type { DaemonRun } from '../store/deployment-log-port';

/**
 * Seconds left out at the end of a run that may still be going: the newest candle's orders may be on
 * their way, and its fills not yet reconciled into the journal.
 */
export const SETTLE_MARGIN_SEC = 120;

/** A drift window taken from the deployment's own runs (`tradebot drift --run last|all|<id>`). */
export interface RunSpan {
  /** Unix s, market time: the first run's start. */
  readonly from: number;
  /** Unix s, exclusive: the last run's end (less the settle margin when it has no stop mark). */
  readonly to: number;
  readonly runs: readonly DaemonRun[];
  /** One line per run for the operator: id, market-time span, how it ended. */
  readonly description: readonly string[];
}

/**
 * The window of one run (`last`, or its id) or of every recorded run (`all`), so nobody has to guess a
 * `--from`: runs are read oldest first, as the deployment log keeps them.
 */
export function runSpan(recorded: readonly DaemonRun[], choice: string): RunSpan {
  if (recorded.length === 0) throw new BacktestInputError('no daemon run is recorded for this config\'s account (drift.record off, another redis.keyPrefix, or past drift.retentionDays)', { field: 'run' });
  const runs = [...recorded].sort((a, b) => a.startedMarketMs - b.startedMarketMs);
  const chosen = choice === 'all' ? runs : choice === 'last' ? [runs[runs.length - 1]!] : runs.filter((r) => r.runId === choice);
  if (chosen.length === 0) {
    const known = runs.slice(-5).map((r) => r.runId).join(', ');
    throw new BacktestInputError(`--run ${choice}: no such run; give last, all or a run id (the newest: ${known})`, { field: 'run' });
  }
  const first = chosen[0]!;
  const last = chosen[chosen.length - 1]!;
  const endSec = (last.stoppedMarketMs ?? last.lastSeenMarketMs) / 1000;
  const to = last.stoppedMarketMs !== undefined ? Math.ceil(endSec / 60) * 60 : Math.floor((endSec - SETTLE_MARGIN_SEC) / 60) * 60;
  const from = Math.floor(first.startedMarketMs / 1000);
  if (!(to > from)) throw new BacktestInputError(`--run ${choice}: the run is too short to compare (${iso(from)} .. ${iso(endSec)} market time, the last ${SETTLE_MARGIN_SEC} s of a run without a stop mark left out)`, { field: 'run' });
  return { from, to, runs: chosen, description: chosen.map(describeRun) };
}

export function describeRun(r: DaemonRun): string {
  const end = r.stoppedMarketMs ?? r.lastSeenMarketMs;
  const how = r.stoppedMarketMs !== undefined ? 'stopped' : 'no stop mark: killed, or still running';
  return `run ${r.runId}: ${iso(r.startedMarketMs / 1000)} .. ${iso(end / 1000)} market time (${how})`;
}

function iso(sec: number): string {
  return new Date(Math.round(sec) * 1000).toISOString().replace('.000Z', 'Z');
}

import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { tieLifeToDaemon } from '../strategy/guest/guest-life';
import { fromWire, plainContext, toWire } from '../strategy/guest/wire';
import type { DriftJob } from './drift-job';
import { snapshotSources } from './records-snapshot';
import type { EquityPoint } from '../backtest/report';
import { runDrift, type DriftResult, type DriftSpec } from './run-drift';

/**
 * A drift replay's guest process (drift-in-guests.ts starts it like a strategy guest: no environment,
 * the permission model, its own namespaces where the host allows): it reads its job file, replays the
 * strategy through the backtester and compares with the journal's copy in the file, and answers the
 * result as plain data. Strategy code runs here, so nothing here holds a secret or a connection.
 */
interface Port {
  send(message: unknown): void;
}

if (process.send === undefined) throw new Error('drift-guest runs as a child process with IPC');
const port: Port = { send: (m) => { process.send?.(m); } };
tieLifeToDaemon(); // ends with the daemon, never of a stop signal meant for the daemon (guest-life.ts)

process.once('message', (message: unknown) => {
  const job = (message as { type?: unknown; job?: unknown; nice?: unknown } | null);
  if (job?.type !== 'drift' || typeof job.job !== 'string') return port.send({ type: 'drift_failed', name: 'Error', message: 'expected a drift job' });
  // Lowered here, before any strategy code: set by the parent after the fork, unshare's child could miss it.
  if (typeof job.nice === 'number') {
    try {
      setPriority(job.nice);
    } catch {
      // Not allowed here (containers may forbid it): the replay still runs, in its own process.
    }
  }
  void run(job.job);
});

async function run(file: string): Promise<void> {
  try {
    const job = JSON.parse(readFileSync(file, 'utf8')) as DriftJob;
    const spec = fromWire(job.spec) as DriftSpec;
    const result = await runDrift(spec, await snapshotSources(job.records, file));
    const cpu = process.cpuUsage();
    port.send({ type: 'drift_result', result: toWire(plainResult(result)), cpuSeconds: (cpu.user + cpu.system) / 1e6 });
  } catch (err) {
    const e = err as { name?: unknown; message?: unknown; context?: unknown };
    port.send({ type: 'drift_failed', name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), context: toWire(plainContext(e?.context)) });
  }
}

/** The result as plain data: equity points are lazy objects of the curve builder, sent as time, equity and value. */
function plainResult(r: DriftResult): DriftResult {
  const plain = (curve: readonly EquityPoint[]): EquityPoint[] => curve.map((p) => (p.value === undefined ? { time: p.time, equity: p.equity } : { time: p.time, equity: p.equity, value: p.value }));
  return { ...r, strategies: r.strategies.map((s) => ({ ...s, liveEquity: plain(s.liveEquity), replayEquity: plain(s.replayEquity) })) };
}

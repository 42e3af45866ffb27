import { spawn, type ChildProcess } from 'node:child_process';
import { unlink } from 'node:fs/promises';
import { setPriority } from 'node:os';
import type { Clock } from '../core/clock';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';

export interface PeriodicDriftCheckOptions {
  /** The daemon's entry script (dist/src/main.js) and its config file: the child is `tradebot drift` on them. */
  readonly entry: string;
  readonly configFile: string;
  readonly env: NodeJS.ProcessEnv;
  readonly marketClock: Clock;
  readonly wallClock: Clock;
  readonly windowMinutes: number;
  readonly maxUnexplained: number;
  readonly metrics: Metrics;
  readonly log: Logger;
  /**
   * When the records live in this process (paper without Redis): writes the window's records to a
   * file the child reads (`--records`), and returns its path.
   */
  readonly snapshot?: ((from: number, to: number) => Promise<string>) | undefined;
  /** Windows start no earlier than this (Unix s, market time): nothing was recorded before it (memory records start with the process). */
  readonly notBefore?: number | undefined;
}

/** The JSON report's parts the metrics read (drift-report.ts). */
interface ReportSummary {
  readonly verdict: { readonly unexplained: number };
  readonly cost?: { readonly cpuSeconds: number };
  readonly strategies: readonly {
    readonly strategy: string; readonly matched: number; readonly pnlDifference: string;
    readonly differences: readonly { readonly kind: string; readonly cause: string; readonly candleTime: number; readonly market: string; readonly detail: string }[];
  }[];
}

/**
 * Minutes at the end of the window left out: the newest candle's orders may still be on their way,
 * and its fills not yet reconciled into the journal.
 */
const SETTLE_MARGIN_SEC = 120;
/** A check that takes longer than this is killed (it would overlap the next one). */
const MAX_CHECK_MS = 10 * 60_000;

/**
 * The daemon's own drift check, run every `drift.intervalMinutes` over the last window: `tradebot
 * drift --json` in a child process at a lower CPU priority, so the replay never delays a candle's
 * orders; its report becomes the `tradebot_drift_*` series. One check at a time: a tick while one
 * still runs is skipped.
 */
export class PeriodicDriftCheck {
  private child: ChildProcess | undefined;
  private busy = false;

  constructor(private readonly o: PeriodicDriftCheckOptions) {
    o.metrics.driftUnexplainedAllowed.set(o.maxUnexplained);
  }

  /** Starts one check unless one is running; returns at once. */
  tick(): void {
    if (this.busy) {
      this.o.log.warn({}, 'drift check still running: this interval is skipped');
      return;
    }
    this.busy = true;
    const to = Math.floor((this.o.marketClock.nowMs() / 1000 - SETTLE_MARGIN_SEC) / 60) * 60;
    const from = Math.max(to - this.o.windowMinutes * 60, this.o.notBefore === undefined ? 0 : Math.ceil(this.o.notBefore / 60) * 60 + 60);
    if (from >= to) {
      this.busy = false;
      return; // not enough recorded yet
    }
    const snapshot = this.o.snapshot;
    const file = snapshot === undefined ? Promise.resolve(undefined) : snapshot(from, to);
    file.then((records) => this.spawnCheck(from, to, records), (err: unknown) => {
      this.busy = false;
      this.o.metrics.driftChecks.inc({ verdict: 'error' });
      this.o.log.warn({ err }, 'drift check not started: its records could not be written');
    });
  }

  private spawnCheck(from: number, to: number, records: string | undefined): void {
    const args = [this.o.entry, 'drift', '--config', this.o.configFile, '--from', String(from), '--to', String(to), '--json', '--max-unexplained', String(this.o.maxUnexplained)];
    if (records !== undefined) args.push('--records', records);
    const child = spawn(process.execPath, args, { env: this.o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    try {
      if (child.pid !== undefined) setPriority(child.pid, 10);
    } catch {
      // Not allowed here (containers may forbid it): the check still runs, in its own process.
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), MAX_CHECK_MS);
    timer.unref();
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => { out += c.toString('utf8'); });
    child.stderr!.on('data', (c: Buffer) => { err += c.toString('utf8'); });
    child.once('exit', (code) => {
      clearTimeout(timer);
      this.child = undefined;
      this.busy = false;
      if (records !== undefined) void unlink(records).catch(() => undefined);
      this.record(code, out, err, from, to);
    });
  }

  stop(): void {
    this.child?.kill('SIGKILL');
  }

  private record(code: number | null, out: string, err: string, from: number, to: number): void {
    const m = this.o.metrics;
    let report: ReportSummary;
    try {
      report = JSON.parse(out) as ReportSummary;
    } catch {
      m.driftChecks.inc({ verdict: 'error' });
      this.o.log.warn({ code, from, to, error: err.trim().slice(0, 500) }, 'drift check failed');
      return;
    }
    m.driftChecks.inc({ verdict: code === 0 ? 'ok' : 'drift' });
    m.driftUnexplained.set(report.verdict.unexplained);
    m.driftLastCheck.set(this.o.wallClock.nowMs() / 1000);
    if (report.cost !== undefined) m.driftCheckCpu.set(report.cost.cpuSeconds);
    m.driftDifferences.reset();
    for (const s of report.strategies) {
      m.driftMatched.set({ strategy: s.strategy }, s.matched);
      m.driftPnlDifference.set({ strategy: s.strategy }, Number(s.pnlDifference));
      const counts = new Map<string, number>();
      for (const d of s.differences) counts.set(`${d.kind}|${d.cause}`, (counts.get(`${d.kind}|${d.cause}`) ?? 0) + 1);
      for (const [key, n] of counts) {
        const [difference = '', cause = ''] = key.split('|');
        m.driftDifferences.set({ strategy: s.strategy, difference, cause }, n);
      }
    }
    const log = report.verdict.unexplained > this.o.maxUnexplained ? this.o.log.warn.bind(this.o.log) : this.o.log.info.bind(this.o.log);
    // The first few unexplained ones in the log line: where to start reading (the full report: tradebot drift --out).
    const unexplained = report.strategies.flatMap((s) => s.differences.filter((d) => d.cause === 'unexplained').map((d) => `${s.strategy} ${d.market} ${d.candleTime} ${d.kind}: ${d.detail}`)).slice(0, 5);
    log({ from, to, unexplained: report.verdict.unexplained, cpuSeconds: report.cost?.cpuSeconds, ...(unexplained.length > 0 ? { first: unexplained } : {}) }, 'drift check done');
  }
}

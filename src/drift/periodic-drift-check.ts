import type { Clock } from '../core/clock';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';
import type { GuestDrift } from './drift-in-guests';
import { NothingRecordedError } from './recorded-window';
import { SETTLE_MARGIN_SEC } from './run-span';
import type { DriftResult } from './run-drift';

export interface PeriodicDriftCheckOptions {
  /** One check of [from, to) (Unix s, market time): runDriftInGuests over the deployment's records. */
  readonly run: (from: number, to: number, signal: AbortSignal) => Promise<GuestDrift>;
  readonly marketClock: Clock;
  readonly wallClock: Clock;
  readonly windowMinutes: number;
  readonly maxUnexplained: number;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Hears each finished check: how many differences nobody explained, and the first few of them. */
  readonly onChecked?: ((check: { readonly from: number; readonly to: number; readonly unexplained: number; readonly first: readonly string[] }) => void) | undefined;
}

/**
 * The daemon's own drift check, run every `drift.intervalMinutes` over the last window: each strategy
 * replayed in a guest process of its own at a lower CPU priority (runDriftInGuests), so the replay never
 * delays a candle's orders and strategy code never runs next to the secrets; the report becomes the
 * `tradebot_drift_*` series. One check at a time: a tick while one still runs is skipped.
 */
export class PeriodicDriftCheck {
  private busy = false;
  private readonly stopping = new AbortController();

  constructor(private readonly o: PeriodicDriftCheckOptions) {
    o.metrics.driftUnexplainedAllowed.set(o.maxUnexplained);
  }

  /** Starts one check unless one is running; returns at once. */
  tick(): void {
    if (this.stopping.signal.aborted) return;
    if (this.busy) {
      this.o.log.warn({}, 'drift check still running: this interval is skipped');
      return;
    }
    const to = Math.floor((this.o.marketClock.nowMs() / 1000 - SETTLE_MARGIN_SEC) / 60) * 60;
    // A window reaching before the records (the first run's first minutes) is clipped by the check itself.
    const from = to - this.o.windowMinutes * 60;
    this.busy = true;
    this.o.run(from, to, this.stopping.signal).then((done) => {
      this.record(done.result, done.cpuSeconds, from, to);
    }, (err: unknown) => {
      if (this.stopping.signal.aborted) return;
      if (err instanceof NothingRecordedError) {
        this.o.log.info({ from, to }, 'drift check skipped: nothing recorded in the window yet');
        return;
      }
      this.o.metrics.driftChecks.inc({ verdict: 'error' });
      this.o.log.warn({ from, to, error: (err instanceof Error ? err.message : String(err)).slice(0, 500) }, 'drift check failed');
    }).finally(() => {
      this.busy = false;
    });
  }

  /** Kills the replay in progress, if any. */
  stop(): void {
    this.stopping.abort();
  }

  private record(report: DriftResult, cpuSeconds: number, askedFrom: number, to: number): void {
    // The window as checked: it begins where the records do when the run began inside it.
    const from = report.from;
    const m = this.o.metrics;
    m.driftChecks.inc({ verdict: report.unexplained <= this.o.maxUnexplained ? 'ok' : 'drift' });
    m.driftUnexplained.set(report.unexplained);
    m.driftLastCheck.set(this.o.wallClock.nowMs() / 1000);
    m.driftCheckCpu.set(cpuSeconds);
    m.driftDifferences.reset();
    for (const s of report.strategies) {
      m.driftMatched.set({ strategy: s.strategy }, s.matched);
      m.driftPnlDifference.set({ strategy: s.strategy }, s.pnlDifference.toNumber());
      const counts = new Map<string, number>();
      for (const d of s.differences) counts.set(`${d.kind}|${d.cause}`, (counts.get(`${d.kind}|${d.cause}`) ?? 0) + 1);
      for (const [key, n] of counts) {
        const [difference = '', cause = ''] = key.split('|');
        m.driftDifferences.set({ strategy: s.strategy, difference, cause }, n);
      }
    }
    const log = report.unexplained > this.o.maxUnexplained ? this.o.log.warn.bind(this.o.log) : this.o.log.info.bind(this.o.log);
    // The first few unexplained ones in the log line: where to start reading (the full report: tradebot drift --out).
    const unexplained = report.strategies.flatMap((s) => s.differences.filter((d) => d.cause === 'unexplained').map((d) => `${s.strategy} ${d.market} ${d.candleTime} ${d.kind}: ${d.detail}`)).slice(0, 5);
    log({ from, to, ...(from === askedFrom ? {} : { clippedFrom: askedFrom }), unexplained: report.unexplained, cpuSeconds, ...(unexplained.length > 0 ? { first: unexplained } : {}) }, 'drift check done');
    this.o.onChecked?.({ from, to, unexplained: report.unexplained, first: unexplained });
  }
}

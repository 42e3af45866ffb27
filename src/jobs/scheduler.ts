import { performance } from 'node:perf_hooks';
import { createTask, type ScheduledTask, type TaskContext } from 'node-cron';
import type { Interval } from '../domain/candle';
import { ConfigError, NotReadyError } from '../domain/errors';
import { candleCloseCronExpression, DEFAULT_POLL_DELAY_MS, nextPollAtMs } from '../market-data/candle-clock';
import { SystemClock, type Clock, type MarketClock } from '../core/clock';

/**
 * Named periodic jobs (kline polls aligned to candle closes, balance polls, reconciliation,
 * kill-switch refresh) behind one JobScheduler interface with two implementations:
 * - CronJobScheduler: node-cron 4 on wall-clock time (UTC). Used in live trading, and in paper
 *   trading when the market clock runs at real speed.
 * - MarketClockJobScheduler: a timer loop on a MarketClock. Used whenever market time is not wall
 *   time: accelerated paper trading (the sleeps are scaled by the clock's speed), backtests and
 *   tests on a driven clock. node-cron cannot follow such a clock: it ticks on wall-clock seconds.
 * createJobScheduler() picks by clock. Both share the run guard: one run of a job at a time (a tick
 * that finds the job still running is skipped and counted), errors are caught, logged and counted.
 */

export type JobSchedule =
  /** At every close of `interval` plus `pollDelayMs` (default 1500; cron rounds it up to whole seconds). */
  | { readonly kind: 'candle-close'; readonly interval: Interval; readonly pollDelayMs?: number }
  /** Every `everyMs`, aligned to multiples of it since the epoch (cron: it must divide a minute, hour or day). */
  | { readonly kind: 'every'; readonly everyMs: number };

export interface JobRunContext {
  readonly job: string;
  /** The tick's instant on the scheduler's clock (Unix ms). */
  readonly scheduledAtMs: number;
  /** Aborted when the scheduler stops: long jobs (paging) should return early. */
  readonly signal: AbortSignal;
}

export interface JobDefinition {
  /** Unique name, used in logs and metrics labels, e.g. `klines:BTC_USDT:1m`, `balance`, `reconcile`, `kill-switch`. */
  readonly name: string;
  readonly schedule: JobSchedule;
  readonly run: (ctx: JobRunContext) => Promise<void>;
}

/** Metric hooks. A hook that throws is logged and ignored. */
export interface JobEvents {
  onRun?(e: { readonly job: string; readonly scheduledAtMs: number; readonly durationMs: number; readonly ok: boolean }): void;
  onSkip?(e: { readonly job: string; readonly scheduledAtMs: number; readonly reason: 'overlap' }): void;
  onError?(e: { readonly job: string; readonly scheduledAtMs: number; readonly error: unknown }): void;
  onSuccess?(e: { readonly job: string; readonly atMs: number }): void;
}

export interface JobStats {
  readonly runs: number;
  readonly skips: number;
  readonly errors: number;
  /** Scheduler-clock time of the last successful finish. */
  readonly lastSuccessAtMs: number | undefined;
  readonly running: boolean;
}

/** The pino-compatible subset the scheduler logs with. */
export interface SchedulerLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobScheduler {
  /** Registers a job; if the scheduler is started it is armed at once. Duplicate names throw ConfigError. */
  add(job: JobDefinition): void;
  start(): void;
  /** Runs a job now through the same guard (skipped if it is running). Resolves when that run ends; never rejects. */
  runNow(name: string): Promise<void>;
  /**
   * Stops ticking, aborts the runs' signal and resolves once in-flight runs finished or `timeoutMs`
   * passed (real time); `pending` names the jobs still running then.
   */
  stop(timeoutMs?: number): Promise<{ readonly pending: readonly string[] }>;
  stats(): Readonly<Record<string, JobStats>>;
}

export interface SchedulerOptions {
  readonly log: SchedulerLog;
  readonly events?: JobEvents;
}

interface JobState {
  readonly def: JobDefinition;
  running: Promise<void> | undefined;
  runs: number;
  skips: number;
  errors: number;
  lastSuccessAtMs: number | undefined;
}

const DEFAULT_STOP_TIMEOUT_MS = 10_000;

abstract class GuardedJobScheduler implements JobScheduler {
  protected readonly jobs = new Map<string, JobState>();
  protected readonly abort = new AbortController();
  private started = false;
  private stopped = false;

  /** `clock`: when a tick runs, for its duration and last success (wall for cron, market for the market loop). */
  constructor(protected readonly options: SchedulerOptions, protected readonly clock: Clock) {}

  protected abstract arm(state: JobState): void;
  protected abstract disarm(state: JobState): void;
  protected abstract release(state: JobState): void;
  protected abstract checkSchedule(schedule: JobSchedule): void;

  add(job: JobDefinition): void {
    if (this.jobs.has(job.name)) throw new ConfigError(`job "${job.name}" is already registered`, { path: `jobs.${job.name}` });
    this.checkSchedule(job.schedule);
    const state: JobState = { def: job, running: undefined, runs: 0, skips: 0, errors: 0, lastSuccessAtMs: undefined };
    this.jobs.set(job.name, state);
    if (this.started && !this.stopped) this.arm(state);
  }

  start(): void {
    if (this.stopped) throw new NotReadyError('scheduler was stopped; create a new one');
    if (this.started) return;
    this.started = true;
    for (const state of this.jobs.values()) this.arm(state);
  }

  runNow(name: string): Promise<void> {
    const state = this.jobs.get(name);
    if (state === undefined) return Promise.reject(new ConfigError(`no job named "${name}"`, { path: `jobs.${name}` }));
    return this.tick(state, this.clock.nowMs());
  }

  async stop(timeoutMs: number = DEFAULT_STOP_TIMEOUT_MS): Promise<{ readonly pending: readonly string[] }> {
    if (!this.stopped) {
      this.stopped = true;
      this.abort.abort();
      for (const state of this.jobs.values()) this.disarm(state);
    }
    const inFlight = [...this.jobs.values()].flatMap((s) => (s.running === undefined ? [] : [s.running]));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    await Promise.race([Promise.all(inFlight), timeout]);
    clearTimeout(timer);
    const pending = [...this.jobs.values()].filter((s) => s.running !== undefined).map((s) => s.def.name);
    for (const state of this.jobs.values()) this.release(state);
    return { pending };
  }

  stats(): Readonly<Record<string, JobStats>> {
    const out: Record<string, JobStats> = {};
    for (const [name, s] of this.jobs) {
      out[name] = { runs: s.runs, skips: s.skips, errors: s.errors, lastSuccessAtMs: s.lastSuccessAtMs, running: s.running !== undefined };
    }
    return out;
  }

  /** The guard both implementations go through. Resolves when the run ends (or at once when skipped). */
  protected tick(state: JobState, scheduledAtMs: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (state.running !== undefined) {
      this.recordSkip(state, scheduledAtMs);
      return Promise.resolve();
    }
    const run = this.execute(state, scheduledAtMs).finally(() => { state.running = undefined; });
    state.running = run;
    return run;
  }

  protected recordSkip(state: JobState, scheduledAtMs: number): void {
    state.skips += 1;
    this.options.log.warn({ job: state.def.name, scheduledAtMs, skips: state.skips }, 'job skipped: previous run still in flight');
    this.hook(() => this.options.events?.onSkip?.({ job: state.def.name, scheduledAtMs, reason: 'overlap' }));
  }

  private async execute(state: JobState, scheduledAtMs: number): Promise<void> {
    const job = state.def.name;
    const t0 = performance.now();
    state.runs += 1;
    let ok = false;
    try {
      await state.def.run({ job, scheduledAtMs, signal: this.abort.signal });
      ok = true;
      const atMs = this.clock.nowMs();
      state.lastSuccessAtMs = atMs;
      this.hook(() => this.options.events?.onSuccess?.({ job, atMs }));
    } catch (error) {
      state.errors += 1;
      this.options.log.error({ job, scheduledAtMs, errors: state.errors, err: error }, 'job failed');
      this.hook(() => this.options.events?.onError?.({ job, scheduledAtMs, error }));
    }
    const durationMs = performance.now() - t0;
    this.hook(() => this.options.events?.onRun?.({ job, scheduledAtMs, durationMs, ok }));
  }

  private hook(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.options.log.error({ err: error }, 'scheduler event hook failed');
    }
  }
}

/** A fixed period as a 6-field node-cron expression, or ConfigError when cron cannot express it. */
export function everyCronExpression(everyMs: number): string {
  const bad = (): ConfigError => new ConfigError(
    `every ${everyMs} ms cannot be expressed in cron: use a whole number of seconds dividing a minute, minutes dividing an hour, or hours dividing a day`,
    { path: 'jobs.everyMs' },
  );
  if (!Number.isInteger(everyMs) || everyMs <= 0 || everyMs % 1000 !== 0) throw bad();
  const s = everyMs / 1000;
  if (s < 60 && 60 % s === 0) return s === 1 ? '* * * * * *' : `*/${s} * * * * *`;
  if (s % 60 === 0 && s / 60 < 60 && 60 % (s / 60) === 0) return `0 */${s / 60} * * * *`;
  if (s % 3600 === 0 && s / 3600 < 24 && 24 % (s / 3600) === 0) return `0 0 */${s / 3600} * * *`;
  if (s === 86_400) return '0 0 0 * * *';
  throw bad();
}

function cronExpressionFor(schedule: JobSchedule): string {
  return schedule.kind === 'every'
    ? everyCronExpression(schedule.everyMs)
    : candleCloseCronExpression(schedule.interval, schedule.pollDelayMs ?? DEFAULT_POLL_DELAY_MS).expression;
}

/** node-cron 4 on wall-clock UTC. node-cron's own `noOverlap` blocks a tick while a run is pending; we count it as a skip. */
export class CronJobScheduler extends GuardedJobScheduler {
  private readonly tasks = new Map<string, ScheduledTask>();

  constructor(options: SchedulerOptions & { readonly clock?: Clock }) {
    super(options, options.clock ?? new SystemClock());
  }

  protected checkSchedule(schedule: JobSchedule): void {
    cronExpressionFor(schedule);
  }

  protected arm(state: JobState): void {
    const job = state.def.name;
    const log = this.options.log;
    const task = createTask(cronExpressionFor(state.def.schedule), (ctx: TaskContext) => this.tick(state, ctx.date.getTime()), {
      name: job,
      timezone: 'UTC',
      noOverlap: true,
      logger: {
        info: () => undefined,
        debug: () => undefined,
        // Overlaps are logged by recordSkip; other warnings (missed ticks under load) pass through.
        warn: (message: string) => { if (!message.includes('overlap prevention')) log.warn({ job }, `node-cron: ${message}`); },
        error: (message: string | Error, err?: Error) => log.error({ job, err: err ?? message }, 'node-cron error'),
      },
    });
    task.on('execution:overlap', (ctx) => this.recordSkip(state, ctx.date.getTime()));
    this.tasks.set(job, task);
    void task.start();
  }

  protected disarm(state: JobState): void {
    void this.tasks.get(state.def.name)?.stop();
  }

  protected release(state: JobState): void {
    void this.tasks.get(state.def.name)?.destroy();
    this.tasks.delete(state.def.name);
  }
}

/** First tick instant strictly after `nowMs` on the market clock. */
export function nextTickAtMs(schedule: JobSchedule, nowMs: number): number {
  if (schedule.kind === 'candle-close') {
    return nextPollAtMs(schedule.interval, nowMs, schedule.pollDelayMs ?? DEFAULT_POLL_DELAY_MS);
  }
  return Math.floor(nowMs / schedule.everyMs) * schedule.everyMs + schedule.everyMs;
}

/**
 * A loop per job on a MarketClock: compute the next tick in market time, sleep until then (the
 * clock scales the real sleep by its speed), tick, repeat. When a driven clock jumps over several
 * ticks at once, only one tick runs: the pollers catch up by themselves.
 */
export class MarketClockJobScheduler extends GuardedJobScheduler {
  private readonly disarmed = new Set<string>();
  private readonly market: MarketClock;

  constructor(options: SchedulerOptions & { readonly clock: MarketClock }) {
    super(options, options.clock);
    this.market = options.clock;
  }

  protected checkSchedule(schedule: JobSchedule): void {
    if (schedule.kind === 'every' && (!Number.isInteger(schedule.everyMs) || schedule.everyMs <= 0)) {
      throw new ConfigError(`everyMs must be a positive integer, got ${schedule.everyMs}`, { path: 'jobs.everyMs' });
    }
    nextTickAtMs(schedule, 0); // validates the poll delay
  }

  protected arm(state: JobState): void {
    void this.loop(state);
  }

  protected disarm(state: JobState): void {
    this.disarmed.add(state.def.name);
  }

  protected release(): void {}

  private async loop(state: JobState): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted && !this.disarmed.has(state.def.name)) {
      const at = nextTickAtMs(state.def.schedule, this.market.nowMs());
      await this.market.sleepUntil(at, signal);
      if (signal.aborted) return;
      void this.tick(state, at);
    }
  }
}

/** Cron on a wall clock (live, real-speed paper); the market-clock loop on anything else (accelerated paper, backtest, tests). */
export function createJobScheduler(options: SchedulerOptions & { readonly clock: MarketClock }): JobScheduler {
  return options.clock instanceof SystemClock ? new CronJobScheduler(options) : new MarketClockJobScheduler(options);
}

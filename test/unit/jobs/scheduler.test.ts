import {
  createJobScheduler, CronJobScheduler, everyCronExpression, MarketClockJobScheduler, nextTickAtMs,
  type JobRunContext, type SchedulerLog,
} from '../../../src/jobs/scheduler';
import { ManualClock, SystemClock } from '../../../src/core/clock';

const T = Date.UTC(2021, 8, 29, 7, 0, 10); // 07:00:10 UTC
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

function recordingLog(): SchedulerLog & { lines: { level: string; obj: object; msg: string }[] } {
  const lines: { level: string; obj: object; msg: string }[] = [];
  return {
    lines,
    warn: (obj, msg) => { lines.push({ level: 'warn', obj, msg }); },
    error: (obj, msg) => { lines.push({ level: 'error', obj, msg }); },
  };
}

/** Moves the driven clock to `ms` once every job loop is parked on it, then lets the woken runs start. */
async function moveTo(clock: ManualClock, ms: number): Promise<void> {
  await flush();
  clock.setMs(ms);
  await flush();
}

describe('MarketClockJobScheduler (driven market clock)', () => {
  test('candle-close jobs tick at close + delay on market time; every-jobs on multiples of the period', async () => {
    const clock = new ManualClock(T);
    const s = new MarketClockJobScheduler({ clock, log: recordingLog() });
    const seen: [string, number][] = [];
    s.add({ name: 'klines', schedule: { kind: 'candle-close', interval: '1m' }, run: async (c) => { seen.push([c.job, c.scheduledAtMs]); } });
    s.add({ name: 'balance', schedule: { kind: 'every', everyMs: 30_000 }, run: async (c) => { seen.push([c.job, c.scheduledAtMs]); } });
    s.start();
    await moveTo(clock, T + 20_000); // 07:00:30
    await moveTo(clock, T + 51_500); // 07:01:01.5
    expect(seen).toEqual([['balance', T + 20_000], ['balance', T + 50_000], ['klines', T + 51_500]]);
    expect(s.stats()['klines']).toMatchObject({ runs: 1, skips: 0, errors: 0, lastSuccessAtMs: T + 51_500, running: false });
    await s.stop();
  });

  test('no overlap: a tick while the job still runs is skipped and counted', async () => {
    const clock = new ManualClock(T);
    const skips: number[] = [];
    const s = new MarketClockJobScheduler({ clock, log: recordingLog(), events: { onSkip: (e) => skips.push(e.scheduledAtMs) } });
    const gate = deferred();
    let started = 0;
    s.add({ name: 'slow', schedule: { kind: 'every', everyMs: 1000 }, run: async () => { started += 1; await gate.promise; } });
    s.start();
    await moveTo(clock, T + 1000);
    await moveTo(clock, T + 2000);
    await moveTo(clock, T + 3000);
    expect(started).toBe(1);
    expect(skips).toEqual([T + 2000, T + 3000]);
    expect(s.stats()['slow']).toMatchObject({ runs: 1, skips: 2, running: true });
    gate.resolve();
    await flush();
    await moveTo(clock, T + 4000);
    expect(started).toBe(2);
    await s.stop();
  });

  test('errors are isolated: caught, logged, counted; the job and the others keep running', async () => {
    const clock = new ManualClock(T);
    const log = recordingLog();
    const errors: string[] = [];
    const runs: boolean[] = [];
    const s = new MarketClockJobScheduler({
      clock, log,
      events: { onError: (e) => errors.push(e.job), onRun: (e) => runs.push(e.ok), onSuccess: () => { throw new Error('hook bug'); } },
    });
    let n = 0;
    s.add({ name: 'flaky', schedule: { kind: 'every', everyMs: 1000 }, run: async () => { n += 1; if (n === 1) throw new Error('boom'); } });
    s.add({ name: 'steady', schedule: { kind: 'every', everyMs: 1000 }, run: async () => undefined });
    s.start();
    await moveTo(clock, T + 1000);
    await moveTo(clock, T + 2000);
    expect(s.stats()['flaky']).toMatchObject({ runs: 2, errors: 1, lastSuccessAtMs: T + 2000 });
    expect(s.stats()['steady']).toMatchObject({ runs: 2, errors: 0 });
    expect(errors).toEqual(['flaky']);
    expect(runs.filter((ok) => !ok)).toHaveLength(1);
    expect(log.lines.find((l) => l.msg === 'job failed')!.obj).toMatchObject({ job: 'flaky' });
    expect(log.lines.some((l) => l.msg === 'scheduler event hook failed')).toBe(true);
    await s.stop();
  });

  test('stop() stops ticking, aborts the run signal and resolves only after in-flight runs finish', async () => {
    const clock = new ManualClock(T);
    const s = new MarketClockJobScheduler({ clock, log: recordingLog() });
    const gate = deferred();
    let ctx: JobRunContext | undefined;
    let runs = 0;
    s.add({ name: 'slow', schedule: { kind: 'every', everyMs: 1000 }, run: async (c) => { runs += 1; ctx = c; await gate.promise; } });
    s.start();
    await moveTo(clock, T + 1000);
    let stopped: { pending: readonly string[] } | undefined;
    const stopping = s.stop().then((r) => { stopped = r; });
    await flush();
    expect(ctx!.signal.aborted).toBe(true);
    expect(stopped).toBeUndefined();
    gate.resolve();
    await stopping;
    expect(stopped).toEqual({ pending: [] });
    await moveTo(clock, T + 10_000);
    expect(runs).toBe(1);
    expect(clock.pendingSleepers()).toBe(0);
    expect(() => s.start()).toThrow(/stopped/);
  });

  test('stop() is bounded by its timeout and names the jobs still running', async () => {
    const clock = new ManualClock(T);
    const s = new MarketClockJobScheduler({ clock, log: recordingLog() });
    s.add({ name: 'stuck', schedule: { kind: 'every', everyMs: 1000 }, run: () => new Promise<void>(() => undefined) });
    s.start();
    await moveTo(clock, T + 1000);
    expect(await s.stop(20)).toEqual({ pending: ['stuck'] });
  });

  test('runNow goes through the same guard; duplicate names and bad schedules are refused', async () => {
    const clock = new ManualClock(T);
    const s = new MarketClockJobScheduler({ clock, log: recordingLog() });
    const gate = deferred();
    let runs = 0;
    s.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: 60_000 }, run: async () => { runs += 1; await gate.promise; } });
    const first = s.runNow('reconcile');
    await s.runNow('reconcile'); // skipped: resolves at once
    expect(s.stats()['reconcile']).toMatchObject({ runs: 1, skips: 1 });
    gate.resolve();
    await first;
    expect(runs).toBe(1);
    expect(() => s.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: 1 }, run: async () => undefined })).toThrow(/already/);
    expect(() => s.add({ name: 'x', schedule: { kind: 'every', everyMs: 0 }, run: async () => undefined })).toThrow(/everyMs/);
    await expect(s.runNow('nope')).rejects.toThrow(/no job/);
    await s.stop();
  });

  test('nextTickAtMs', () => {
    expect(nextTickAtMs({ kind: 'every', everyMs: 30_000 }, T)).toBe(T + 20_000);
    expect(nextTickAtMs({ kind: 'candle-close', interval: '1h', pollDelayMs: 2000 }, T)).toBe(Date.UTC(2021, 8, 29, 8, 0, 2));
  });
});

describe('CronJobScheduler (node-cron, wall clock)', () => {
  test('every-periods map to cron expressions or are refused', () => {
    expect(everyCronExpression(1000)).toBe('* * * * * *');
    expect(everyCronExpression(20_000)).toBe('*/20 * * * * *');
    expect(everyCronExpression(300_000)).toBe('0 */5 * * * *');
    expect(everyCronExpression(4 * 3600_000)).toBe('0 0 */4 * * *');
    expect(everyCronExpression(86_400_000)).toBe('0 0 0 * * *');
    expect(() => everyCronExpression(7000)).toThrow(/cron/);
    expect(() => everyCronExpression(1500)).toThrow(/cron/);
    const s = new CronJobScheduler({ log: recordingLog() });
    expect(() => s.add({ name: 'x', schedule: { kind: 'every', everyMs: 7000 }, run: async () => undefined })).toThrow(/cron/);
  });

  test('createJobScheduler: cron on a wall clock, the market-clock loop otherwise', () => {
    expect(createJobScheduler({ clock: new SystemClock(), log: recordingLog() })).toBeInstanceOf(CronJobScheduler);
    expect(createJobScheduler({ clock: new ManualClock(), log: recordingLog() })).toBeInstanceOf(MarketClockJobScheduler);
  });

  test('real node-cron ticks: overlap is skipped and counted, errors isolated, stop waits for the run', async () => {
    const log = recordingLog();
    const s = new CronJobScheduler({ log });
    const gate = deferred();
    let slowRuns = 0;
    let flakyRuns = 0;
    s.add({ name: 'slow', schedule: { kind: 'every', everyMs: 1000 }, run: async () => { slowRuns += 1; await gate.promise; } });
    s.add({ name: 'flaky', schedule: { kind: 'every', everyMs: 1000 }, run: async () => { flakyRuns += 1; throw new Error('boom'); } });
    s.start();
    // Wait (bounded) for real ticks: the first run of `slow` plus one blocked tick.
    for (let i = 0; i < 100 && (s.stats()['slow']!.skips < 1 || s.stats()['flaky']!.errors < 2); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(slowRuns).toBe(1);
    expect(s.stats()['slow']!.skips).toBeGreaterThanOrEqual(1);
    expect(s.stats()['flaky']!.errors).toBeGreaterThanOrEqual(2);
    expect(flakyRuns).toBe(s.stats()['flaky']!.errors);
    let done = false;
    const stopping = s.stop().then(() => { done = true; });
    await flush();
    expect(done).toBe(false);
    gate.resolve();
    await stopping;
    expect(s.stats()['slow']!.running).toBe(false);
  }, 10_000);
});

/**
 * Time is injected (nautilus LiveClock / TestClock). One port, three clocks:
 * - SystemClock: wall time (live trading, journals, leases, nonce windows);
 * - ManualClock: driven time, moved only when told (backtests, tests) and, with a speed, running
 *   that many times faster than wall time between moves (the simulator's market clock, paper mode);
 * - RemoteSimClock (simulator/remote-sim-clock.ts): a standalone simulator's market clock read over HTTP.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number;
}

/**
 * A clock that market data and the scheduler can wait on. `speed` is market milliseconds per real
 * millisecond (1 = real time, 0 = moved only by hand).
 */
export interface MarketClock extends Clock {
  readonly speed: number;
  /**
   * Resolves once `nowMs() >= targetMs`. Resolves early (never rejects) when `signal` aborts, so
   * loops check `signal.aborted` after waking.
   */
  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void>;
}

// setTimeout stores its delay in a signed 32-bit int; longer delays fire at once.
const MAX_TIMER_MS = 2_147_483_647;
// A floor on each real wait so a clock that moves slower than announced does not spin.
const MIN_TIMER_MS = 1;
// While a clock is paused (speed 0) and cannot wake its sleepers itself: look again this often.
const PAUSED_POLL_MS = 25;

/** Wall time, speed 1. */
export class SystemClock implements MarketClock {
  readonly speed = 1;
  nowMs(): number {
    return Date.now();
  }
  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    return sleepUntilScaled(this, () => 1, targetMs, signal);
  }
}

interface Sleeper {
  readonly targetMs: number;
  readonly wake: () => void;
}

/**
 * Driven time: it moves through setMs / advanceMs (may go back: a test's choice) or advanceTo /
 * advanceBy (never back: the simulator's market clock), and every sleeper whose target is reached
 * wakes then, in target order, with no timer involved. With a `speed` above 0 it also runs between
 * moves at `speed` x the real clock (paper mode: 60 = one market minute per real second).
 */
export class ManualClock implements MarketClock {
  private baseMs: number;
  private baseRealMs: number;
  private currentSpeed: number;
  private changes = 0;
  private sleepers: Sleeper[] = [];
  private readonly real: Clock;

  constructor(startMs = 0, options: { readonly speed?: number; readonly real?: Clock } = {}) {
    this.baseMs = startMs;
    this.currentSpeed = options.speed ?? 0;
    this.real = options.real ?? new SystemClock();
    this.baseRealMs = this.currentSpeed === 0 ? 0 : this.real.nowMs();
  }

  nowMs(): number {
    return this.currentSpeed === 0 ? this.baseMs : this.baseMs + (this.real.nowMs() - this.baseRealMs) * this.currentSpeed;
  }

  get speed(): number {
    return this.currentSpeed;
  }

  /** Increases whenever the clock is driven (moved or its speed changed): lets caches know time jumped. */
  get version(): number {
    return this.changes;
  }

  setMs(ms: number): void {
    this.rebase(ms);
  }

  advanceMs(ms: number): void {
    this.rebase(this.nowMs() + ms);
  }

  /** Moves the clock to `seconds` (ignored if that is in the past). */
  advanceTo(seconds: number): void {
    this.rebase(Math.max(this.nowMs(), seconds * 1000));
  }

  advanceBy(seconds: number): void {
    this.rebase(this.nowMs() + Math.max(0, seconds) * 1000);
  }

  setSpeed(speed: number): void {
    const now = this.nowMs();
    this.currentSpeed = speed;
    this.baseRealMs = this.real.nowMs();
    this.rebase(now);
    // Every sleeper works out its wait again at the new speed.
    for (const s of [...this.sleepers]) s.wake();
  }

  /** Number of pending sleepers (lets a test wait until a loop is parked before moving time). */
  pendingSleepers(): number {
    return this.sleepers.length;
  }

  async sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    // A running clock reaches the target on its own: wait the scaled distance, or until moved.
    while (!signal?.aborted && targetMs > this.nowMs()) {
      const speed = this.currentSpeed;
      const realMs = speed > 0 ? Math.min(MAX_TIMER_MS, Math.max(MIN_TIMER_MS, Math.ceil((targetMs - this.nowMs()) / speed))) : undefined;
      await this.parked(targetMs, realMs, signal);
    }
  }

  /** Waits until moved past `targetMs` (or moved at all when running), `realMs` of real time, or abort. */
  private parked(targetMs: number, realMs: number | undefined, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const onAbort = (): void => done();
      const sleeper: Sleeper = { targetMs: realMs === undefined ? targetMs : Number.NEGATIVE_INFINITY, wake: done };
      if (realMs !== undefined) timer = setTimeout(done, realMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  private rebase(ms: number): void {
    this.baseMs = ms;
    if (this.currentSpeed !== 0) this.baseRealMs = this.real.nowMs();
    this.changes += 1;
    if (this.sleepers.length > 0) this.wakeDue();
  }

  private wakeDue(): void {
    const now = this.nowMs();
    const due = this.sleepers.filter((s) => s.targetMs <= now).sort((a, b) => a.targetMs - b.targetMs);
    for (const s of due) s.wake();
  }
}

/**
 * Waits in real time on a clock that moves at `speed()` x real time: sleep the scaled distance,
 * then look again, because the clock may have been slower, paused, sped up or moved meanwhile.
 */
export async function sleepUntilScaled(clock: Clock, speed: () => number, targetMs: number, signal?: AbortSignal): Promise<void> {
  while (!signal?.aborted) {
    const remaining = targetMs - clock.nowMs();
    if (remaining <= 0) return;
    const s = speed();
    const realMs = s > 0 ? Math.min(MAX_TIMER_MS, Math.max(MIN_TIMER_MS, Math.ceil(remaining / s))) : PAUSED_POLL_MS;
    await realDelay(realMs, signal);
  }
}

function realDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

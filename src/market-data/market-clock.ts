import { SystemClock, type Clock } from '../core/clock';
import { ConfigError } from '../domain/errors';

/**
 * The clock that market data and the scheduler follow. It is a Clock (market time in Unix ms) that
 * can also wait for a market instant. Live trading: wall time, speed 1. Paper trading: an
 * accelerated clock (speed 60 = one market minute per real second), so a real-time sleep is the
 * market-time distance divided by the speed. Tests and backtests: a driven clock whose time moves
 * only when told, and whose sleepers wake when it is moved past their target.
 */
export interface MarketClock extends Clock {
  /** Market milliseconds per real millisecond (1 = real time). Informational for driven clocks. */
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
// While a clock is paused (speed 0: moved only by hand) we cannot compute a wait: look again this often.
const PAUSED_POLL_MS = 25;

/**
 * Waits in real time on any clock that moves at `speed()` x real time: sleep the scaled distance,
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

function checkSpeed(speed: number): void {
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new ConfigError(`market clock speed must be a positive finite number, got ${speed}`, { path: 'marketClock.speed' });
  }
}

/** Live trading: market time is the given clock's time (wall time by default), speed 1. */
export class WallMarketClock implements MarketClock {
  readonly speed = 1;
  constructor(private readonly base: Clock = new SystemClock()) {}
  nowMs(): number {
    return this.base.nowMs();
  }
  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    return sleepUntilScaled(this.base, () => 1, targetMs, signal);
  }
}

/**
 * Paper trading: market time starts at `startMs` and runs `speed` times faster than `realClock`.
 * The exchange simulator must run on the same clock (or one built from the same start and speed).
 */
export class AcceleratedMarketClock implements MarketClock {
  readonly speed: number;
  private readonly startMs: number;
  private readonly realClock: Clock;
  private readonly realStartMs: number;

  constructor(options: { readonly startMs: number; readonly speed: number; readonly realClock?: Clock }) {
    checkSpeed(options.speed);
    this.speed = options.speed;
    this.startMs = options.startMs;
    this.realClock = options.realClock ?? new SystemClock();
    this.realStartMs = this.realClock.nowMs();
  }

  nowMs(): number {
    return this.startMs + Math.floor((this.realClock.nowMs() - this.realStartMs) * this.speed);
  }

  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    return sleepUntilScaled(this, () => this.speed, targetMs, signal);
  }
}

/**
 * Wraps a clock that carries its own speed, such as the simulator's SimClock (whose speed can change
 * at run time, and is 0 while it is moved only by hand: sleepers then look again every 25 ms).
 * Lets the daemon's pollers and scheduler follow the simulated exchange's market time in paper mode.
 */
export class ScaledMarketClock implements MarketClock {
  constructor(private readonly base: Clock & { readonly speed: number }) {}
  get speed(): number {
    return this.base.speed;
  }
  nowMs(): number {
    return this.base.nowMs();
  }
  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    return sleepUntilScaled(this.base, () => this.base.speed, targetMs, signal);
  }
}

interface Sleeper {
  readonly targetMs: number;
  readonly wake: () => void;
}

/**
 * Tests and backtests: time moves only through setMs/advanceMs, and every sleeper whose target was
 * reached wakes then (in target order). No timers are involved, so a test drives it deterministically.
 */
export class DrivenMarketClock implements MarketClock {
  readonly speed = 1;
  private sleepers: Sleeper[] = [];

  constructor(private currentMs: number = 0) {}

  nowMs(): number {
    return this.currentMs;
  }

  setMs(ms: number): void {
    this.currentMs = ms;
    this.wakeDue();
  }

  advanceMs(ms: number): void {
    this.setMs(this.currentMs + ms);
  }

  /** Number of pending sleepers (lets a test wait until a loop is parked before moving time). */
  pendingSleepers(): number {
    return this.sleepers.length;
  }

  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    if (targetMs <= this.currentMs || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        targetMs,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(sleeper);
    });
  }

  private wakeDue(): void {
    const due = this.sleepers.filter((s) => s.targetMs <= this.currentMs).sort((a, b) => a.targetMs - b.targetMs);
    if (due.length === 0) return;
    this.sleepers = this.sleepers.filter((s) => s.targetMs > this.currentMs);
    for (const s of due) s.wake();
  }
}

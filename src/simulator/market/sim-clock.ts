import { SystemClock, type Clock } from '../../core/clock';

/**
 * The simulated exchange's MARKET clock: starts at `startSeconds` and runs `speed` market seconds
 * per real second (speed 0 = it moves only when driven). Tests and paper mode can jump it forward
 * with advanceTo/advanceBy; it never goes backwards.
 *
 * Only market data, fills and kill-switch timers follow this clock. Authentication (nonce windows)
 * and `GET /api/v4/public/time` follow the wall clock, because clients measure their nonce clock
 * offset from that endpoint.
 */
export class SimClock implements Clock {
  private baseMarketMs: number;
  private baseRealMs: number;
  private currentSpeed: number;
  private changes = 0;

  constructor(startSeconds: number, speed: number, private readonly real: Clock = new SystemClock()) {
    this.baseMarketMs = startSeconds * 1000;
    this.baseRealMs = real.nowMs();
    this.currentSpeed = speed;
  }

  nowMs(): number {
    return this.baseMarketMs + (this.real.nowMs() - this.baseRealMs) * this.currentSpeed;
  }

  /** Increases whenever the clock is driven (advance or speed change): lets caches know time jumped. */
  get version(): number {
    return this.changes;
  }

  get speed(): number {
    return this.currentSpeed;
  }

  setSpeed(speed: number): void {
    this.rebase(this.nowMs());
    this.currentSpeed = speed;
  }

  /** Moves the clock to `seconds` (ignored if that is in the past). */
  advanceTo(seconds: number): void {
    this.rebase(Math.max(this.nowMs(), seconds * 1000));
  }

  advanceBy(seconds: number): void {
    this.rebase(this.nowMs() + Math.max(0, seconds) * 1000);
  }

  private rebase(marketMs: number): void {
    this.baseMarketMs = marketMs;
    this.baseRealMs = this.real.nowMs();
    this.changes += 1;
  }
}

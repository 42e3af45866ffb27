/**
 * Fault switches of the WebSocket twin, off by default, settable at start (options, CLI flags) and at
 * run time through `SimulatedExchange.wsFaults`:
 * - `silent`:          connections stay open but the server sends nothing (no answers, no pongs, no
 *                      pushes) while set; what is not sent is lost, as on a stalled venue connection.
 * - `pushDelayMs`:     every push (not answers) is sent this much later.
 * - `duplicatePushes`: every push is sent twice.
 * - `dropEveryMs`:     closes every open connection every this many ms (0 = never): `dropAll` for a
 *                      simulator run as a process, which has no embedding API.
 * - `dropAll()`:       closes every open connection now (an action, not a setting).
 */
export interface WsFaultSettings {
  readonly silent: boolean;
  readonly pushDelayMs: number;
  readonly duplicatePushes: boolean;
  readonly dropEveryMs: number;
}

export const NO_WS_FAULTS: WsFaultSettings = { silent: false, pushDelayMs: 0, duplicatePushes: false, dropEveryMs: 0 };

export class WsFaults {
  private settings: WsFaultSettings = NO_WS_FAULTS;
  private dropListener: (() => number) | undefined;
  private dropTimer: NodeJS.Timeout | undefined;

  configure(changes: Partial<WsFaultSettings>): void {
    const next = { ...this.settings, ...changes };
    for (const key of ['pushDelayMs', 'dropEveryMs'] as const) {
      if (!Number.isFinite(next[key]) || next[key] < 0) throw new RangeError(`ws ${key} must be a number >= 0, got ${next[key]}`);
    }
    this.settings = next;
    this.scheduleDrops();
  }

  reset(): void {
    this.settings = NO_WS_FAULTS;
    this.scheduleDrops();
  }

  /** Stops the drop timer (the server is closing). */
  stop(): void {
    if (this.dropTimer !== undefined) clearInterval(this.dropTimer);
    this.dropTimer = undefined;
  }

  current(): WsFaultSettings {
    return this.settings;
  }

  /** Closes every open WebSocket connection; returns how many were closed. */
  dropAll(): number {
    return this.dropListener?.() ?? 0;
  }

  /** The server registers how to drop its connections. */
  onDropAll(listener: () => number): void {
    this.dropListener = listener;
  }

  private scheduleDrops(): void {
    this.stop();
    if (this.settings.dropEveryMs <= 0) return;
    this.dropTimer = setInterval(() => this.dropAll(), this.settings.dropEveryMs);
    this.dropTimer.unref();
  }
}

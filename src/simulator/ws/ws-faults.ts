/**
 * Fault switches of the WebSocket twin, off by default, settable at start (options, CLI flags) and at
 * run time through `SimulatedExchange.wsFaults`:
 * - `silent`:          connections stay open but the server sends nothing (no answers, no pongs, no
 *                      pushes) while set; what is not sent is lost, as on a stalled venue connection.
 * - `pushDelayMs`:     every push (not answers) is sent this much later.
 * - `duplicatePushes`: every push is sent twice.
 * - `dropAll()`:       closes every open connection now (an action, not a setting).
 */
export interface WsFaultSettings {
  readonly silent: boolean;
  readonly pushDelayMs: number;
  readonly duplicatePushes: boolean;
}

export const NO_WS_FAULTS: WsFaultSettings = { silent: false, pushDelayMs: 0, duplicatePushes: false };

export class WsFaults {
  private settings: WsFaultSettings = NO_WS_FAULTS;
  private dropListener: (() => number) | undefined;

  configure(changes: Partial<WsFaultSettings>): void {
    const next = { ...this.settings, ...changes };
    if (!Number.isFinite(next.pushDelayMs) || next.pushDelayMs < 0) throw new RangeError(`ws pushDelayMs must be >= 0, got ${next.pushDelayMs}`);
    this.settings = next;
  }

  reset(): void {
    this.settings = NO_WS_FAULTS;
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
}

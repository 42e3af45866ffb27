import type { Clock } from '../../core/clock';

/**
 * The cap on what a guest may write to the daemon's log: a strategy is untrusted code, and a log
 * flood (lines per second, or one line of megabytes) would fill disks, drown the lines an operator
 * needs at 3 a.m. and cost the daemon's event loop. A token bucket per guest: `perSecond` lines a
 * second, bursts of up to `burst`; the lines over it are dropped and counted. A line's data is cut to
 * `maxChars` characters of JSON.
 */
export interface GateDecision {
  /** Whether this line is written. */
  readonly pass: boolean;
  /** Lines dropped since the last line that passed (reported with it, once). */
  readonly droppedBefore: number;
}

export const GUEST_LOG_DEFAULTS = Object.freeze({ perSecond: 20, burst: 100, maxChars: 2000 });

export class GuestLogGate {
  private tokens: number;
  private lastMs: number;
  private dropped = 0;

  constructor(private readonly o: { readonly perSecond: number; readonly burst: number; readonly clock: Clock }) {
    this.tokens = o.burst;
    this.lastMs = o.clock.nowMs();
  }

  /** One line offered: pass or drop (counted until the next line that passes). */
  offer(): GateDecision {
    const now = this.o.clock.nowMs();
    this.tokens = Math.min(this.o.burst, this.tokens + (Math.max(0, now - this.lastMs) / 1000) * this.o.perSecond);
    this.lastMs = now;
    if (this.tokens < 1) {
      this.dropped++;
      return { pass: false, droppedBefore: 0 };
    }
    this.tokens -= 1;
    const droppedBefore = this.dropped;
    this.dropped = 0;
    return { pass: true, droppedBefore };
  }
}

/** A guest's log data cut to `maxChars` characters of JSON (a string stays whole up to the cap). */
export function capLogData(data: unknown, maxChars: number): { readonly data: unknown; readonly cut: boolean } {
  let text: string;
  try {
    text = JSON.stringify(data) ?? '';
  } catch {
    return { data: '[unserialisable]', cut: true };
  }
  if (text.length <= maxChars) return { data, cut: false };
  return { data: { truncated: `${text.slice(0, maxChars)}...`, originalChars: text.length }, cut: true };
}

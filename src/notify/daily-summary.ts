import type { Clock } from '../core/clock';
import type { DaemonEvent } from '../domain/daemon-event';

const DAY_MS = 86_400_000;
// A timer armed for hours can wake late (a suspended host, a clock step): it wakes at least this often to look.
const MAX_SLEEP_MS = 3_600_000;
// Woken this late past the hour (the host slept through it), the day's summary is skipped, not sent hours off.
const MAX_LATE_MS = 3_600_000;
// Fill ids remembered per day for deduplication; past it fills are still counted.
const MAX_FILL_IDS = 100_000;

/** Realised PnL of the UTC day so far, from the portfolio (the wiring passes a getter). */
export interface DailyFigures {
  readonly realizedPnl: string;
}

/** What the summary says when the portfolio is not reachable (not wired yet, or it failed). */
export const PNL_UNAVAILABLE = 'unavailable';

/** `YYYY-MM-DD` of a wall time, UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first instant strictly after `nowMs` at `atUtc` ("HH:MM", UTC). */
export function nextSummaryAtMs(nowMs: number, atUtc: string): number {
  const [hh, mm] = atUtc.split(':').map(Number) as [number, number];
  const dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const today = dayStart + (hh * 60 + mm) * 60_000;
  return today > nowMs ? today : today + DAY_MS;
}

export interface DailySummaryOptions {
  readonly atUtc: string;
  /** The wall clock: the summary goes out at a time of the real day. */
  readonly clock: Clock;
  /** Where the summary event goes (the daemon's event bus, so the console hears it too). */
  readonly emit: (event: DaemonEvent) => void;
  readonly figures?: (() => DailyFigures | undefined) | undefined;
}

/**
 * Once a day at `atUtc`, a `daily_summary` event with the day's realised PnL (the getter's) and the
 * fills this daemon heard since 00:00 UTC. Its id `daily:<YYYY-MM-DD>` is the same on every replica,
 * so the channels' claims let one of them tell it. A daemon down at `atUtc` sends none that day.
 */
export class DailySummary {
  private nextAtMs: number;
  private timer: NodeJS.Timeout | undefined;
  private fillDay = '';
  private readonly fillIds = new Set<string>();
  private extraFills = 0;
  private stopped = false;

  constructor(private readonly o: DailySummaryOptions) {
    this.nextAtMs = nextSummaryAtMs(o.clock.nowMs(), o.atUtc);
  }

  /** Hears the bus: counts each fill of the current UTC day once. */
  observe(event: DaemonEvent): void {
    if (event.type !== 'fill') return;
    const day = utcDay(this.o.clock.nowMs());
    if (day !== this.fillDay) {
      this.fillDay = day;
      this.fillIds.clear();
      this.extraFills = 0;
    }
    if (this.fillIds.size < MAX_FILL_IDS) this.fillIds.add(event.id);
    else this.extraFills += 1;
  }

  start(): void {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Emits the summary when its time has come (the timer calls it; tests drive it with a manual clock). */
  tick(): void {
    const now = this.o.clock.nowMs();
    if (now < this.nextAtMs) return;
    const late = now - this.nextAtMs;
    const day = utcDay(this.nextAtMs);
    this.nextAtMs = nextSummaryAtMs(now, this.o.atUtc);
    if (late > MAX_LATE_MS) return;
    this.o.emit({ type: 'daily_summary', id: `daily:${day}`, atMs: now, day, realizedPnl: this.realizedPnl(), fills: this.fillsOn(day) });
  }

  private fillsOn(day: string): number {
    return day === this.fillDay ? this.fillIds.size + this.extraFills : 0;
  }

  private realizedPnl(): string {
    try {
      return this.o.figures?.()?.realizedPnl ?? PNL_UNAVAILABLE;
    } catch {
      return PNL_UNAVAILABLE;
    }
  }

  private arm(): void {
    if (this.stopped) return;
    const wait = Math.max(0, Math.min(MAX_SLEEP_MS, this.nextAtMs - this.o.clock.nowMs()));
    this.timer = setTimeout(() => {
      this.tick();
      this.arm();
    }, wait);
    // The daemon's other work keeps the process alive; this timer alone must not.
    this.timer.unref();
  }
}

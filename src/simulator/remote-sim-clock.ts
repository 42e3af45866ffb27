import { z } from 'zod';
import { sleepUntilScaled, type Clock, type MarketClock } from '../core/clock';
import { BadResponseError, ExchangeUnavailableError } from '../domain/errors';
import { SIM_CLOCK_PATH } from './server/sim-clock-endpoint';

const answerSchema = z.strictObject({
  marketTimeMs: z.number().int().nonnegative(),
  speed: z.number().nonnegative().finite(),
  wallTimeMs: z.number().int().nonnegative(),
});

/**
 * The market clock of a standalone `tradebot sim-exchange`, read over HTTP (GET /_sim/clock) and
 * extrapolated locally between reads: market now = last market time + (local wall time since) x speed.
 * Re-read every `refreshMs` to follow speed changes and drift; never moves backwards (a later read
 * that lands behind what was already handed out holds the clock until it catches up). A failed
 * re-read keeps the last extrapolation: the clock keeps running at the last known speed.
 */
export class RemoteSimClock implements MarketClock {
  private baseMarketMs = 0;
  private baseWallMs = 0;
  private currentSpeed = 0;
  private highestMs = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly url: string, private readonly wall: Clock, private readonly timeoutMs: number) {}

  /** Reads the clock once (throws when the simulator does not answer it), then re-reads every `refreshMs`. */
  static async connect(baseUrl: string, wall: Clock, options: { readonly refreshMs?: number; readonly timeoutMs?: number } = {}): Promise<RemoteSimClock> {
    const clock = new RemoteSimClock(`${baseUrl.replace(/\/+$/, '')}${SIM_CLOCK_PATH}`, wall, options.timeoutMs ?? 5000);
    await clock.refresh();
    clock.timer = setInterval(() => void clock.refresh().catch(() => undefined), options.refreshMs ?? 1000);
    clock.timer.unref();
    return clock;
  }

  get speed(): number {
    return this.currentSpeed;
  }

  nowMs(): number {
    const now = Math.floor(this.baseMarketMs + (this.wall.nowMs() - this.baseWallMs) * this.currentSpeed);
    this.highestMs = Math.max(this.highestMs, now);
    return this.highestMs;
  }

  /** Waits the scaled distance and looks again (a paused remote clock is looked at every 25 ms). */
  sleepUntil(targetMs: number, signal?: AbortSignal): Promise<void> {
    return sleepUntilScaled(this, () => this.currentSpeed, targetMs, signal);
  }

  async refresh(): Promise<void> {
    const sentAt = this.wall.nowMs();
    let res: Response;
    try {
      res = await fetch(this.url, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new ExchangeUnavailableError(`simulator clock ${this.url} unreachable: ${(err as Error).message}`, { url: this.url }, { cause: err });
    }
    const text = await res.text();
    let parsed: z.output<typeof answerSchema> | undefined;
    try {
      const result = answerSchema.safeParse(JSON.parse(text));
      if (result.success) parsed = result.data;
    } catch {
      parsed = undefined;
    }
    if (res.status !== 200 || parsed === undefined) {
      throw new BadResponseError(`simulator clock ${this.url}: HTTP ${res.status}, not {marketTimeMs, speed, wallTimeMs} (is this a tradebot sim-exchange?)`, {
        url: this.url, httpStatus: res.status, bodyExcerpt: text.slice(0, 200),
      });
    }
    const receivedAt = this.wall.nowMs();
    // The answer describes the middle of the round trip.
    this.baseMarketMs = parsed.marketTimeMs + ((receivedAt - sentAt) / 2) * parsed.speed;
    this.baseWallMs = receivedAt;
    this.currentSpeed = parsed.speed;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

import type { Clock } from '../../../src/core/clock';
import { candleOpenTime, intervalSeconds, nextCandleOpenTime, type Candle, type Interval } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import type { ExchangeClient, FetchCandlesRequest } from '../../../src/exchange/exchange-client';

/** A candle with price `p` (all of O/H/L/C) and volume `v`. */
export function candle(time: number, p = 100, v = 1): Candle {
  const d = new Decimal(p);
  return { time, open: d, high: d, low: d, close: d, volume: new Decimal(v), volumeMoney: new Decimal(v * p) };
}

/**
 * A small in-memory stand-in for the kline endpoint (pure-logic unit tests only; behaviour over
 * HTTP is tested against the simulator). It keeps a full history, answers [start, end] windows with
 * the first `limit` rows, includes the still-open candle when the window reaches it, enforces the
 * API's request rules, and records every request.
 */
export class KlineStub implements Pick<ExchangeClient, 'fetchCandles'> {
  readonly requests: FetchCandlesRequest[] = [];
  private rows = new Map<number, Candle>();
  /** Rows hidden from the next `n` answers (to simulate a lagging first answer). */
  hideOnce = new Set<number>();
  /** Candles with open time >= this are not known yet (exchange lag). */
  lagFrom: number | undefined;

  constructor(private readonly clock: Clock, private readonly interval: Interval) {}

  /** Fills every candle open time in [from, to] (seconds). */
  fill(from: number, to: number, price = (t: number) => 100 + (t % 7)): void {
    for (let t = from; t <= to; t = nextCandleOpenTime(this.interval, t)) this.rows.set(t, candle(t, price(t)));
  }
  set(c: Candle): void { this.rows.set(c.time, c); }
  remove(from: number, to: number): void { for (const t of [...this.rows.keys()]) if (t >= from && t <= to) this.rows.delete(t); }

  async fetchCandles(req: FetchCandlesRequest): Promise<Candle[]> {
    this.requests.push(req);
    const limit = req.limit ?? 1440;
    if (limit < 1 || limit > 1440) throw new Error(`limit ${limit} out of 1..1440`);
    if (req.start !== undefined && req.end !== undefined && req.start > req.end) throw new Error('start > end');
    if (req.interval !== this.interval) throw new Error('wrong interval');
    const nowS = Math.floor(this.clock.nowMs() / 1000);
    const end = req.end ?? nowS;
    const start = req.start ?? end - 86_400;
    const currentOpen = candleOpenTime(this.interval, nowS);
    const out: Candle[] = [];
    for (const t of [...this.rows.keys()].sort((a, b) => a - b)) {
      if (t < start || t > end || t > currentOpen) continue;
      if (this.lagFrom !== undefined && t >= this.lagFrom) continue;
      if (this.hideOnce.has(t)) { this.hideOnce.delete(t); continue; }
      out.push(this.rows.get(t)!);
      if (out.length >= limit) break;
    }
    return out;
  }
}

export const MIN = 60;
export function stepsOf(interval: Interval): number { return intervalSeconds(interval); }

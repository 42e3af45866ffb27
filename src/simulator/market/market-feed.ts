import type { Clock } from '../../core/clock';
import type { MarketName } from '../../domain/market';
import { rowToCandle, type CsvCandleRow } from '../../candle-files/csv-candles';
import { partialAlongPath } from '../engine/price-path';
import type { SimEngine } from '../engine/sim-engine';
import type { EngineEvent } from '../engine/types';
import { MINUTE, type CandleSource } from './candle-source';

/**
 * Replays each market's 1m candles into the engine as the market clock moves. `sync()` applies every
 * candle that CLOSED since the last call, all markets merged in time order, with the kill-switch
 * timers fired in between; then it sets each market's last price to where the still-open candle's
 * path has got to. Gaps in the data stay gaps: no candle is invented, the last price just waits.
 *
 * The server calls sync() before serving each request (and on a timer when the clock runs by
 * itself), so a test that moves the clock sees the effects on its next request.
 */
export class MarketFeed {
  private readonly applied = new Map<MarketName, number>();
  private readonly misserved = new Map<string, Readonly<Partial<Record<'open' | 'high' | 'low' | 'close', string>>>>();

  constructor(
    private readonly engine: SimEngine,
    private readonly clock: Clock,
    private readonly sources: ReadonlyMap<MarketName, CandleSource>,
  ) {
    const now = this.nowSeconds();
    for (const [market, source] of sources) {
      // Candles that closed before the start are history: shown by kline, never applied to orders.
      const startOpen = Math.floor(now / MINUTE) * MINUTE;
      this.applied.set(market, startOpen);
      const first = source.rowsBetween(startOpen, startOpen + MINUTE)[0]
        ?? source.rowsBetween(startOpen - MINUTE * 1440, startOpen).at(-1)
        ?? source.rowsBetween(startOpen, startOpen + 7 * 86_400 * 1)[0];
      if (first !== undefined) engine.setLastPrice(market, rowToCandle(first).open);
    }
    this.sync();
  }

  nowSeconds(): number {
    return this.clock.nowMs() / 1000;
  }

  markets(): MarketName[] {
    return [...this.sources.keys()];
  }

  source(market: MarketName): CandleSource | undefined {
    return this.sources.get(market);
  }

  /**
   * Test fault: the kline endpoint shows the 1m candle opening at `openTime` with other values (open,
   * high, low, close as text) until `clearMisserved`, while the engine fills on the file's values: a
   * venue that serves a candle and corrects it afterwards (the drift check's "data" cause).
   */
  misserve(market: MarketName, openTime: number, values: Readonly<Partial<Record<'open' | 'high' | 'low' | 'close', string>>>): void {
    this.misserved.set(`${market}|${openTime}`, values);
  }

  clearMisserved(): void {
    this.misserved.clear();
  }

  /** The misserved values of one 1m candle, if any. */
  misservedValues(market: MarketName, openTime: number): Readonly<Partial<Record<'open' | 'high' | 'low' | 'close', string>>> | undefined {
    return this.misserved.size === 0 ? undefined : this.misserved.get(`${market}|${openTime}`);
  }

  /** Brings the engine up to the market clock. Returns the engine events this produced. */
  sync(): EngineEvent[] {
    const now = this.nowSeconds();
    const due: { market: MarketName; row: CsvCandleRow }[] = [];
    for (const [market, source] of this.sources) {
      const from = this.applied.get(market) ?? now;
      // Rows whose close (open + 60) is at or before now.
      const rows = source.rowsBetween(from, Math.floor(now) - MINUTE + 1);
      for (const row of rows) due.push({ market, row });
      const last = rows.at(-1);
      if (last !== undefined) this.applied.set(market, last.time + MINUTE);
    }
    due.sort((a, b) => a.row.time - b.row.time || (a.market < b.market ? -1 : a.market > b.market ? 1 : 0));
    const events: EngineEvent[] = [];
    for (const { market, row } of due) {
      events.push(...this.engine.processTimers(row.time + MINUTE));
      events.push(...this.engine.applyCandle(market, rowToCandle(row), MINUTE));
    }
    events.push(...this.engine.processTimers(now));
    for (const [market, source] of this.sources) this.observeOpenCandle(market, source, now);
    return events;
  }

  private observeOpenCandle(market: MarketName, source: CandleSource, now: number): void {
    const openTime = Math.floor(now / MINUTE) * MINUTE;
    const row = source.rowsBetween(openTime, openTime + MINUTE)[0];
    const info = this.engine.market(market);
    if (row === undefined || info === undefined || now <= openTime) return;
    const partial = partialAlongPath(rowToCandle(row), (now - openTime) / MINUTE);
    this.engine.setLastPrice(market, partial.price.toDecimalPlaces(info.moneyPrec));
  }
}

import { candleOpenTime, intervalSeconds, nextCandleOpenTime, type Candle, type Interval } from '../../domain/candle';
import { BacktestInputError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { ExchangeClient } from '../../exchange/exchange-client';
import { CsvAppendFile } from './csv-append-file';
import { GapTracker, type DownloadGap } from './gap-tracker';
import type { DownloadProgress } from './progress';

/** The kline endpoint returns at most this many candles per call. */
export const KLINE_PAGE = 1440;

export interface DownloadOptions {
  readonly client: Pick<ExchangeClient, 'fetchCandles'>;
  readonly market: MarketName;
  readonly interval: Interval;
  /** Open time of the first candle wanted (Unix s); rounded up to the interval. */
  readonly from: number;
  /** End (Unix s), exclusive: candles opening before it. */
  readonly to: number;
  readonly out: string;
  readonly progress?: DownloadProgress | undefined;
  /** Stop after this many pages (tests: an interrupted download). */
  readonly maxPages?: number | undefined;
}

export interface DownloadSummary {
  /** Rows already in the file when a download resumed (its last open time), if any. */
  readonly resumedAfter: number | undefined;
  readonly written: number;
  readonly pages: number;
  readonly gaps: readonly DownloadGap[];
  readonly duplicates: number;
  /** Bytes of a torn last line cut off when the file was opened. */
  readonly repairedBytes: number;
  /** The newest candle seen but not written because nothing yet shows it closed (open time). */
  readonly unconfirmed: number | undefined;
  /** True when maxPages stopped the download before the end. */
  readonly interrupted: boolean;
}

/**
 * Pages the kline endpoint from `from` to `to` and appends CLOSED candles to a CSV file.
 *
 * - Paging: each call asks for at most 1440 candles. The newest candle of a response may still be
 *   open (the venue returns the running candle last), so the last row of each page is held back and
 *   asked for again as the first row of the next page; a candle is written only once a later candle
 *   exists, i.e. it has closed, with the values of the answer that showed it closed. The final
 *   page asks for one candle past `to` for the same reason. A candle that nothing confirms (the
 *   present, or the very end of the data) is not written; a later run resumes with it.
 * - Resume: an existing file is continued after its last row (a torn last line is cut off first).
 * - Gaps (missing candles) and duplicates (rows at or before the last written time) are counted.
 */
export async function downloadCandles(o: DownloadOptions): Promise<DownloadSummary> {
  if (o.interval === '1M') throw new BacktestInputError('download: the 1M interval is not supported (months have no fixed length)', { field: 'interval' });
  const step = intervalSeconds(o.interval);
  const alignedFrom = candleOpenTime(o.interval, o.from) < o.from ? nextCandleOpenTime(o.interval, candleOpenTime(o.interval, o.from)) : o.from;
  if (o.to <= alignedFrom) throw new BacktestInputError('download: --to must be after --from', { field: 'to' });
  const file = CsvAppendFile.open(o.out);
  try {
    const resumedAfter = file.lastTime;
    let cursor = resumedAfter === undefined ? alignedFrom : Math.max(alignedFrom, resumedAfter + step);
    const gaps = new GapTracker(step, alignedFrom, resumedAfter);
    const total = Math.max(0, Math.ceil((o.to - alignedFrom) / step));
    let done = resumedAfter === undefined ? 0 : Math.max(0, Math.min(total, Math.floor((resumedAfter - alignedFrom) / step) + 1));
    o.progress?.start(total);
    let written = 0;
    let pages = 0;
    /** The newest row seen, not yet known to be closed. */
    let pending: Candle | undefined;
    /** pending came from an earlier page than the one that confirms it: re-read it before writing. */
    let pendingStale = false;

    while (cursor < o.to) {
      if (o.maxPages !== undefined && pages >= o.maxPages) {
        o.progress?.stop();
        return { resumedAfter, written, pages, gaps: gaps.gaps, duplicates: gaps.duplicates, repairedBytes: file.repairedBytes, unconfirmed: pending?.time, interrupted: true };
      }
      // Inclusive end; the page after `to - step` reaches `to` to confirm the last wanted candle.
      const pageEnd = Math.min(cursor + (KLINE_PAGE - 1) * step, o.to);
      const rows = await o.client.fetchCandles({ market: o.market, interval: o.interval, start: cursor, end: pageEnd, limit: KLINE_PAGE });
      pages++;
      const batch: Candle[] = [];
      let last: Candle | undefined;
      for (const row of rows) {
        if (row.time < cursor || row.time > pageEnd) continue;
        if (pending !== undefined && row.time > pending.time) {
          const confirmed = pendingStale ? await refetch(o, pending) : pending;
          if (gaps.accept(confirmed.time)) batch.push(confirmed);
          pending = undefined;
        }
        if (pending !== undefined && row.time <= pending.time) {
          if (row.time === pending.time) pending = row; // the same candle, newer values
          else gaps.duplicates++;
          continue;
        }
        if (last !== undefined && row.time <= last.time) {
          gaps.duplicates++;
          continue;
        }
        last = row;
        if (row.time >= o.to) continue; // only there to confirm the candle before it
        pending = row;
        pendingStale = false;
      }
      file.append(batch);
      written += batch.length;
      done = Math.min(total, done + batch.length);
      // Re-ask for the held-back row on the next page when this page was full; otherwise move past it.
      const full = rows.length >= KLINE_PAGE;
      if (pending !== undefined && full) cursor = pending.time;
      else {
        cursor = pageEnd + step;
        if (pending !== undefined) pendingStale = true;
      }
      o.progress?.update(done, { page: pages, upTo: Math.min(cursor, o.to) });
    }
    o.progress?.stop();
    return { resumedAfter, written, pages, gaps: gaps.gaps, duplicates: gaps.duplicates, repairedBytes: file.repairedBytes, unconfirmed: pending?.time, interrupted: false };
  } finally {
    file.close();
  }
}

async function refetch(o: DownloadOptions, candle: Candle): Promise<Candle> {
  const rows = await o.client.fetchCandles({ market: o.market, interval: o.interval, start: candle.time, end: candle.time, limit: 1 });
  return rows.find((r) => r.time === candle.time) ?? candle;
}

import type { Candle, Interval } from '../../domain/candle';
import { INTERVALS, intervalSeconds } from '../../domain/candle';
import { BacktestInputError } from '../../domain/errors';
import { MARKET_NAME, type MarketName } from '../../domain/market';
import { readCsvColumns, type CsvColumnsFile } from '../../candle-files/csv-columns';

/** One `--data MARKET=FILE.csv` argument. */
export interface DataSpec {
  readonly market: MarketName;
  readonly file: string;
}

/** The candles of one market, ascending, gaps kept. */
export interface MarketCandles {
  readonly market: MarketName;
  readonly candles: readonly Candle[];
  /** The file they came from and the SHA-256 of its content (the report identifies the data by it). */
  readonly file?: string | undefined;
  readonly sha256?: string | undefined;
}

/** Parses `BTC_USDT=data/btc.csv`; throws BacktestInputError naming the argument. */
export function parseDataSpec(text: string): DataSpec {
  const eq = text.indexOf('=');
  const market = eq > 0 ? text.slice(0, eq) : '';
  const file = eq > 0 ? text.slice(eq + 1) : '';
  if (!MARKET_NAME.test(market) || file === '') {
    throw new BacktestInputError(`--data expects MARKET=FILE.csv (e.g. BTC_USDT=btc.csv), got "${text}"`, { field: 'data' });
  }
  return { market, file };
}

/** Rows (or candles) with from <= time < to (either bound optional). They are sorted, so this is two binary searches. */
export function sliceByTime<T extends { readonly time: number }>(rows: readonly T[], from?: number, to?: number): readonly T[] {
  const lo = from === undefined ? 0 : lowerBound(rows, from);
  const hi = to === undefined ? rows.length : lowerBound(rows, to);
  return rows.slice(lo, Math.max(lo, hi));
}

function lowerBound(rows: readonly { readonly time: number }[], time: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((rows[mid] as { time: number }).time < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The interval of a candle file: the smallest step between consecutive rows (gaps only make steps
 * larger). Needs two rows; a step that is no exchange interval is an input error.
 */
export function inferInterval(candles: readonly { readonly time: number }[], market: string): Interval {
  let step = Number.POSITIVE_INFINITY;
  const n = Math.min(candles.length, 5000);
  for (let i = 1; i < n; i++) step = Math.min(step, (candles[i] as { time: number }).time - (candles[i - 1] as { time: number }).time);
  const match = INTERVALS.find((iv) => iv !== '1M' && intervalSeconds(iv) === step);
  if (match === undefined) {
    throw new BacktestInputError(`${market}: cannot tell the candle interval (${n < 2 ? 'fewer than 2 candles' : `smallest step ${step} s`})`, { field: 'data', market });
  }
  return match;
}

/**
 * Loads each file (header, increasing times and plain decimals are checked by the CSV reader),
 * streamed into typed columns; the candles are ColumnCandle views building Decimals when read.
 */
export async function loadMarketData(specs: readonly DataSpec[], range: { from?: number | undefined; to?: number | undefined } = {}): Promise<MarketCandles[]> {
  const seen = new Set<string>();
  const out: MarketCandles[] = [];
  for (const spec of specs) {
    if (seen.has(spec.market)) throw new BacktestInputError(`--data names ${spec.market} twice`, { field: 'data', market: spec.market });
    seen.add(spec.market);
    let read: CsvColumnsFile;
    try {
      read = await readCsvColumns(spec.file);
    } catch (err) {
      throw new BacktestInputError(`${spec.market}: cannot read ${spec.file}: ${(err as Error).message}`, { field: 'data', file: spec.file }, { cause: err });
    }
    const candles = sliceByTime(read.columns.candles(), range.from, range.to);
    const sha256 = read.sha256;
    if (candles.length === 0) throw new BacktestInputError(`${spec.market}: no candles in ${spec.file} for the chosen range`, { field: 'data', file: spec.file });
    out.push({ market: spec.market, candles, file: spec.file, sha256 });
  }
  // Deterministic market order, whatever the order of the arguments.
  return out.sort((a, b) => (a.market < b.market ? -1 : a.market > b.market ? 1 : 0));
}

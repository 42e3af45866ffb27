import { candleOpenTime, intervalSeconds, type Candle, type Interval } from '../domain/candle';
import type { ExchangeClient } from '../exchange/exchange-client';
import type { RecordedCandle } from '../store/deployment-log-port';

/** A candle the venue now serves differently from what the daemon acted on (or no longer serves). */
export interface CorrectedCandle {
  readonly market: string;
  readonly interval: Interval;
  readonly time: number;
  /** The fields that differ: open, high, low, close, volume, volumeMoney, or `missing`. */
  readonly fields: readonly string[];
  readonly recorded: Readonly<Record<string, string>>;
  readonly venue: Readonly<Record<string, string>> | null;
}

const FIELDS = ['open', 'high', 'low', 'close', 'volume', 'volumeMoney'] as const;
/** The kline endpoint's page (docs: at most 1440 per request). */
const PAGE = 1440;

/**
 * Data drift: the recorded candles of [from, to) against the venue's kline history for the same
 * window, downloaded now (after the fact). Values compare as decimals (`1.50` equals `1.5`).
 */
export async function correctedCandles(
  venue: Pick<ExchangeClient, 'fetchCandles'>, markets: readonly string[], interval: Interval, from: number, to: number,
  recorded: ReadonlyMap<string, readonly RecordedCandle[]>,
): Promise<CorrectedCandle[]> {
  const out: CorrectedCandle[] = [];
  const step = intervalSeconds(interval);
  for (const market of markets) {
    const mine = (recorded.get(market) ?? []).filter((c) => c.time >= from && c.time < to && c.source !== 'warm-up');
    if (mine.length === 0) continue;
    const history = new Map<number, Candle>();
    for (let start = candleOpenTime(interval, mine[0]!.time); start <= mine[mine.length - 1]!.time; start += PAGE * step) {
      const end = Math.min(start + (PAGE - 1) * step, mine[mine.length - 1]!.time);
      for (const c of await venue.fetchCandles({ market, interval, start, end, limit: PAGE })) history.set(c.time, c);
    }
    for (const c of mine) {
      const v = history.get(c.time);
      const fields = v === undefined ? ['missing'] : FIELDS.filter((f) => !v[f].equals(c[f]));
      if (fields.length === 0) continue;
      out.push({
        market, interval, time: c.time, fields,
        recorded: Object.fromEntries(FIELDS.map((f) => [f, c[f]])),
        venue: v === undefined ? null : Object.fromEntries(FIELDS.map((f) => [f, v[f].toString()])),
      });
    }
  }
  return out;
}

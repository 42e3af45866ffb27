import { intervalSeconds, type Interval } from '../domain/candle';
import type { DriftDifference, IntentOutcome } from './drift-types';
import type { Classifier } from './classify-difference';

export interface Comparison {
  readonly matched: number;
  readonly differences: readonly DriftDifference[];
}

/** Candles between the intent's candle close and its first fill (0: filled in the candle after it). */
export function fillCandles(o: IntentOutcome, interval: Interval): number | undefined {
  if (o.firstFillSec === undefined) return undefined;
  const step = intervalSeconds(interval);
  return Math.max(0, Math.floor((o.firstFillSec - (o.candleTime + step)) / step));
}

/** Which fields of two outcomes of one intent differ. */
export function differingFields(live: IntentOutcome, replay: IntentOutcome, interval: Interval): string[] {
  const out: string[] = [];
  if (!live.price.equals(replay.price)) out.push('price');
  if (!live.amount.equals(replay.amount)) out.push('amount');
  if (live.side !== replay.side || live.kind !== replay.kind) out.push('order');
  if (!live.filledAmount.equals(replay.filledAmount)) out.push('filled');
  else if (live.filledAmount.greaterThan(0) && fillCandles(live, interval) !== fillCandles(replay, interval)) out.push('fill_candles');
  if (!live.fee.equals(replay.fee)) out.push('fee');
  return out;
}

/**
 * Live and replay intent by intent, in candle order, each difference classified. The classifier
 * sees the differences found before (per strategy and market), so a difference that follows from an
 * explained earlier one (a missed entry leaves the strategy flat live) is attributed to it.
 */
export function compareOutcomes(live: readonly IntentOutcome[], replay: readonly IntentOutcome[], interval: (strategy: string) => Interval, classify: Classifier): Comparison {
  const byId = new Map<string, { live?: IntentOutcome; replay?: IntentOutcome }>();
  for (const o of live) byId.set(o.intentId, { ...byId.get(o.intentId), live: o });
  for (const o of replay) byId.set(o.intentId, { ...byId.get(o.intentId), replay: o });
  const pairs = [...byId.values()].sort((a, b) => (a.live ?? a.replay)!.candleTime - (b.live ?? b.replay)!.candleTime);
  let matched = 0;
  const differences: DriftDifference[] = [];
  for (const p of pairs) {
    const any = (p.live ?? p.replay)!;
    const kind = p.live === undefined ? 'only_replay' : p.replay === undefined ? 'only_live' : 'different';
    const fields = kind === 'different' ? differingFields(p.live!, p.replay!, interval(any.strategy)) : [];
    if (kind === 'different' && fields.length === 0) {
      matched++;
      continue;
    }
    const partial = { kind, intentId: any.intentId, strategy: any.strategy, market: any.market, candleTime: any.candleTime, fields, live: p.live, replay: p.replay } as const;
    differences.push({ ...partial, ...classify(partial, differences) });
  }
  return { matched, differences };
}

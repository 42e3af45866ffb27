import { intervalSeconds, type Interval } from '../domain/candle';
import type { RecordedCandle, RecordedDecision } from '../store/deployment-log-port';
import { inDowntime, type DowntimeWindow } from './downtime';
import type { DriftCause, DriftDifference } from './drift-types';

/** What the deployment recorded, and what the venue says now, for the classification. */
export interface DriftEvidence {
  readonly interval: (strategy: string) => Interval;
  readonly recordedCandle: (market: string, interval: Interval, time: number) => RecordedCandle | undefined;
  readonly downtime: readonly DowntimeWindow[];
  readonly decisions: (strategy: string, market: string, candleTime: number) => readonly RecordedDecision[];
  /** The venue's history of this candle differs from the recorded one (data drift); false when not checked. */
  readonly corrected: (market: string, interval: Interval, time: number) => boolean;
  /** The rule by which the replay denied (or its venue rejected) an intent of this candle, if it did. */
  readonly replayDenied?: ((strategy: string, market: string, candleTime: number) => string | undefined) | undefined;
  /** How the version or parameters live ran for this intent differ from the replay's, if they do. */
  readonly versionChange?: ((d: Unclassified) => string | undefined) | undefined;
  /** What the strategy carried into the window on the market (a position, open orders), which the replay does not recreate. */
  readonly carried?: ((strategy: string, market: string) => string | undefined) | undefined;
}

export type Unclassified = Omit<DriftDifference, 'cause' | 'detail'>;
export type Classifier = (d: Unclassified, earlier: readonly DriftDifference[]) => { cause: DriftCause; detail: string };

const FILL_FIELDS = new Set(['filled', 'fill_candles', 'fee']);

/** Denied outcomes of the executor (and the staleness guard). */
const DENIED = new Set<RecordedDecision['outcome']>(['denied', 'error', 'rejected']);

/**
 * The classifier of docs/drift.md ("Causes"), first match wins:
 *   daemon down -> denied live -> version change -> data -> latency -> fill model -> follows an earlier explained difference -> unexplained.
 */
export function classifier(ev: DriftEvidence): Classifier {
  return (d, earlier) => {
    const interval = ev.interval(d.strategy);
    const stepMs = intervalSeconds(interval) * 1000;
    const closeMs = d.candleTime * 1000 + stepMs;
    const candle = ev.recordedCandle(d.market, interval, d.candleTime);
    const decisions = ev.decisions(d.strategy, d.market, d.candleTime);
    if (d.kind !== 'only_live') {
      if (candle === undefined) return { cause: 'daemon_down', detail: 'no candle recorded: the daemon never saw it' };
      if (candle.source === 'warm-up') return { cause: 'daemon_down', detail: 'the candle came only as warm-up history after a restart' };
      if (candle.stale && inDowntime(ev.downtime, closeMs)) return { cause: 'daemon_down', detail: 'the candle came as back-fill after a restart, more than one interval after its close: intents dropped as stale' };
      if (candle.stale) return { cause: 'latency', detail: `the daemon got the candle ${Math.round((candle.receivedMarketMs - closeMs) / 1000)} s after its close (busy or slow venue): intents dropped as stale` };
      if (decisions.length === 0 && inDowntime(ev.downtime, closeMs)) return { cause: 'daemon_down', detail: 'the daemon died after receiving the candle, before acting on it' };
    }
    const denied = decisions.find((x) => DENIED.has(x.outcome));
    if (d.kind === 'only_replay' && denied !== undefined) {
      return { cause: 'denied_live', detail: `live ${denied.outcome === 'rejected' ? 'the venue rejected it' : `denied it: ${denied.rule ?? denied.outcome}`}` };
    }
    const change = ev.versionChange?.(d);
    if (change !== undefined) return { cause: 'version_change', detail: change };
    if (ev.corrected(d.market, interval, d.candleTime)) return { cause: 'data', detail: 'the venue now serves this candle differently from what the daemon acted on' };
    const fillOnly = d.kind === 'different' && d.fields.every((f) => FILL_FIELDS.has(f));
    const accepted = decisions.find((x) => !DENIED.has(x.outcome));
    if (accepted !== undefined && (fillOnly || d.kind === 'only_live') && accepted.marketMs - closeMs > stepMs / 2) {
      return { cause: 'latency', detail: `accepted ${Math.round((accepted.marketMs - closeMs) / 1000)} s after its candle closed (more than half an interval)` };
    }
    if (fillOnly) {
      // The candles the two sides' fills were decided on: from the order's candle to the later fill.
      const fills = [d.live?.firstFillSec, d.replay?.firstFillSec].filter((t): t is number => t !== undefined);
      const fillCorrected = correctedBetween(ev, d.market, interval, d.candleTime, Math.max(d.candleTime + stepMs / 1000, ...fills));
      if (fillCorrected) return { cause: 'data', detail: 'a candle between the order and its fill was corrected by the venue' };
      return { cause: 'fill_model', detail: `same order, different ${d.fields.join(', ')}` };
    }
    const prior = [...earlier].reverse().find((e) => e.strategy === d.strategy && e.market === d.market && e.cause !== 'unexplained' && e.candleTime <= d.candleTime);
    if (prior !== undefined) {
      return { cause: prior.cause, detail: `follows the ${prior.cause} difference of candle ${prior.candleTime}: the strategy's position or open orders differed` };
    }
    const replayRule = d.kind === 'only_live' ? ev.replayDenied?.(d.strategy, d.market, d.candleTime) : undefined;
    const what = replayRule !== undefined ? `placed live, the replay denied it: ${replayRule}`
      : d.kind === 'different' ? `${d.fields.join(', ')} differ with the same inputs` : `placed only ${d.kind === 'only_live' ? 'live' : 'in the replay'}, on the same candle`;
    // Still unexplained (the replay cannot tell), but the reader learns where to look first.
    const carried = ev.carried?.(d.strategy, d.market);
    return { cause: 'unexplained', detail: carried === undefined ? what : `${what}; the strategy carried ${carried} into the window, which the replay does not recreate` };
  };
}

function correctedBetween(ev: DriftEvidence, market: string, interval: Interval, fromSec: number, toSec: number): boolean {
  const step = intervalSeconds(interval);
  for (let t = fromSec; t <= toSec; t += step) if (ev.corrected(market, interval, t)) return true;
  return false;
}

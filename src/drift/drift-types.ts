import type { Decimal } from '../domain/decimal';
import type { OrderSide } from '../domain/order';

/**
 * Why live and replay differ on one intent (docs/drift.md, "Causes"):
 * - daemon_down: live never saw the candle (dead, restarting, or it came only as warm-up/back-fill)
 * - denied_live: live refused the intent (rate limit, lease, pause, kill-switch, not ready, stale candle, a risk rule)
 * - latency: live's order reached the venue after its candle's next one had half run
 * - fill_model: same order, different fills (partial fill, gap, OCO leg): the simulator's fill model is not the venue
 * - data: the recorded candle differs from the venue's history for it (a corrected candle)
 * - version_change: live ran another version or other parameters of the strategy than the replay (a reload, promote, rollback or restart with changed code)
 * - unexplained: none of the above
 */
export const DRIFT_CAUSES = ['daemon_down', 'denied_live', 'latency', 'fill_model', 'data', 'version_change', 'unexplained'] as const;
export type DriftCause = (typeof DRIFT_CAUSES)[number];

/** One intent as it turned out, on one side (live from the journal, replay from the backtest). */
export interface IntentOutcome {
  /** The client order id without its leg suffix: the same on both sides (deterministic ids). */
  readonly intentId: string;
  readonly strategy: string;
  readonly market: string;
  readonly candleTime: number;
  readonly kind: 'stop_limit' | 'oco';
  readonly side: OrderSide;
  readonly amount: Decimal;
  readonly price: Decimal;
  readonly filledAmount: Decimal;
  readonly filledMoney: Decimal;
  readonly fee: Decimal;
  /** Market time (Unix s) of the first fill, when one happened and its time is known. */
  readonly firstFillSec?: number | undefined;
  /** Live only: the strategy version and parameters (canonical JSON) the journal says placed it. */
  readonly version?: string | undefined;
  readonly params?: string | undefined;
}

export type DifferenceKind = 'only_live' | 'only_replay' | 'different';

export interface DriftDifference {
  readonly kind: DifferenceKind;
  readonly intentId: string;
  readonly strategy: string;
  readonly market: string;
  readonly candleTime: number;
  /** What differs when both sides have the intent: price, amount, filled, fill_candles, fee. */
  readonly fields: readonly string[];
  readonly live?: IntentOutcome | undefined;
  readonly replay?: IntentOutcome | undefined;
  readonly cause: DriftCause;
  /** The evidence in words (the denying rule, the late acceptance, the corrected candle, the earlier difference). */
  readonly detail: string;
}

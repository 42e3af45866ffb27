import type { Interval } from '../domain/candle';
import type { MarketName } from '../domain/market';
import type { OrderSide } from '../domain/order';

/**
 * The journal of trailing stops (execution/trailing/): one record per logical order, whose legs are
 * ordinary stop-limit orders in the order journal. A move is journaled here (phase `moving`, the next
 * leg named) BEFORE the resting leg is cancelled, so a crash at any point of a move is finished on
 * restart without ever leaving two legs resting (docs/trailing-stops.md).
 *
 * Adapters: RedisTrailingStore (store/trailing-store.ts) and InMemoryTrailingStore (store/memory/).
 * Money fields are plain decimal strings, as in the order journal.
 */

/** `placing`: leg 0 journaled, its answer not yet; `resting`: leg `leg` rests; `moving`: leg `leg` is being replaced by `next`; `ended`. */
export type TrailingPhase = 'placing' | 'resting' | 'moving' | 'ended';

/** One leg placed: at which candle (open time, Unix s), with which trigger and limit price. */
export interface TrailingLegPlacement {
  readonly leg: number;
  readonly clientOrderId: string;
  readonly candleTime: number;
  readonly trigger: string;
  readonly price: string;
}

export interface TrailingStopRecord {
  /** The logical order's id: its leg 0's client order id (what the strategy cancels it by). */
  readonly id: string;
  readonly strategy: string;
  readonly market: MarketName;
  /** The candles that move it: its strategy's interval. */
  readonly interval: Interval;
  readonly side: OrderSide;
  /** Amount still protected: the intent's, less what earlier legs executed. */
  readonly remaining: string;
  readonly trail: string;
  readonly step: string;
  readonly limitOffset: string;
  readonly purpose: 'entry' | 'exit';
  readonly tag?: string | undefined;
  /** Open time of the candle the intent came from: with the leg number, it derives every leg's client order id. */
  readonly candleTime: number;
  readonly strategyVersion?: string | undefined;
  readonly strategyParams?: string | undefined;
  /** Best price seen since placement: highest high (sell) or lowest low (buy). */
  readonly best: string;
  readonly phase: TrailingPhase;
  /** The current leg (resting, or the one being replaced while `moving`). */
  readonly leg: TrailingLegPlacement;
  /** While `moving`: the leg that replaces `leg` once it is known cancelled. */
  readonly next?: TrailingLegPlacement | undefined;
  /** Every leg placed, oldest first (bounded: the newest MAX_TRAILING_MOVES). */
  readonly moves: readonly TrailingLegPlacement[];
  readonly endReason?: string | undefined;
  readonly updatedAtMs: number;
}

export const MAX_TRAILING_MOVES = 500;

export interface TrailingStore {
  /** Writes the record whole (one writer: the holder of the (strategy, market) lease); an ended one leaves the active set. */
  put(record: TrailingStopRecord): Promise<void>;
  get(id: string): Promise<TrailingStopRecord | undefined>;
  /** Every record not ended (start-up recovery). */
  listActive(): Promise<TrailingStopRecord[]>;
}

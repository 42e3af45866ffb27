import type { MarketInfo } from '../../domain/market';
import type { StampedIntent } from '../../strategy/intent-validation';

/** A risk check's answer: pass, or the named rule that refused the intent and why. */
export type RiskVerdict = { readonly ok: true } | { readonly ok: false; readonly rule: string; readonly reason: string };

/**
 * The pre-trade checks the executor runs first (practice 9). The RiskEngine (src/risk) implements it;
 * the executor gives it the intent, already rounded to the market's precision, and the market.
 */
export interface PreTradeRisk {
  check(intent: StampedIntent, market: MarketInfo): RiskVerdict | Promise<RiskVerdict>;
  /**
   * The part of the checks that can change while the order is being journaled (the operator's
   * trading state), asked again synchronously right before the order is sent: an order is never
   * sent after the daemon applied a pause.
   */
  recheck?(intent: StampedIntent): RiskVerdict;
}

/** Lets everything through (tests and benchmarks that are not about risk). */
export const ALLOW_ALL: PreTradeRisk = { check: () => ({ ok: true }) };

import { createHash } from 'node:crypto';

/** The exchange's client_order_id rule: letters, digits, `-`, `.`, `_`; at most 64 characters. */
export const CLIENT_ORDER_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const CLIENT_ORDER_ID_MAX_LENGTH = 64;

export function isValidClientOrderId(value: string): boolean {
  return CLIENT_ORDER_ID_PATTERN.test(value);
}

/** Which order of an intent: the single order of a stop-limit, or one leg of an OCO. */
export type OrderLeg = 'sl' | 'tp' | 'o';

/**
 * A deterministic client order id, derived from (strategy, market, candle time, leg, tag) and
 * recorded before anything is sent. Replaying the same intent after a crash yields the same id, so
 * the exchange refuses a second order (code 36) instead of creating a duplicate.
 *
 * Form: `tb-<strategy slug, <=12>-<hash 8>-<candle time base36>-<leg>`; the hash covers every input,
 * so two strategies whose slugs collide still get different ids. At most 40 characters.
 */
export function deriveClientOrderId(input: {
  strategy: string;
  market: string;
  candleTime: number;
  leg: OrderLeg;
  tag?: string | undefined;
}): string {
  const slug = input.strategy.toLowerCase().replace(/[^a-z0-9]+/g, '').slice(0, 12) || 's';
  const hash = createHash('sha256')
    .update(`${input.strategy}\u0000${input.market}\u0000${input.candleTime}\u0000${input.tag ?? ''}`)
    .digest('hex')
    .slice(0, 8);
  return `tb-${slug}-${hash}-${input.candleTime.toString(36)}-${input.leg}`;
}

import { createHash, hash as oneShotHash } from 'node:crypto';

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
  return `tb-${slugOf(input.strategy)}-${hashOf(input.strategy, input.market, input.candleTime, input.tag ?? '')}-${input.candleTime.toString(36)}-${input.leg}`;
}

// The ids must stay byte-for-byte the same across versions (a journaled intent replayed after an
// upgrade must map to the same id), so the hash stays SHA-256; only its cost is cut: the one-shot
// `crypto.hash` (no Hash object; Node >= 20.12), slugs cached per strategy name, and the last hash
// remembered because both legs of an OCO share it.
const slugs = new Map<string, string>();
let lastKey = '';
let lastHash = '';

function slugOf(strategy: string): string {
  let slug = slugs.get(strategy);
  if (slug === undefined) {
    slug = strategy.toLowerCase().replace(/[^a-z0-9]+/g, '').slice(0, 12) || 's';
    if (slugs.size < 1000) slugs.set(strategy, slug);
  }
  return slug;
}

function hashOf(strategy: string, market: string, candleTime: number, tag: string): string {
  const key = `${strategy}\u0000${market}\u0000${candleTime}\u0000${tag}`;
  if (key === lastKey) return lastHash;
  const hex = typeof oneShotHash === 'function' ? oneShotHash('sha256', key, 'hex') : createHash('sha256').update(key).digest('hex');
  lastKey = key;
  lastHash = hex.slice(0, 8);
  return lastHash;
}

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
 * the journal finds it and nothing is sent again. The venue itself refuses a second order with the
 * id only while the first is OPEN; once that one finished it accepts the id again, so no path may
 * rely on the venue to dedupe (docs/daemon.md, "Order identity on the venue").
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

const MINTED = /^tb-([a-z0-9]{1,12})-([0-9a-f]{8})-([0-9a-z]{1,12})-(o|sl|tp)$/;

/** The parts of an id made by deriveClientOrderId; undefined for any other id (another bot's, a manual order's). */
export function parseClientOrderId(id: string): { readonly slug: string; readonly hash: string; readonly candleTime: number; readonly leg: OrderLeg } | undefined {
  const m = MINTED.exec(id);
  if (m === null) return undefined;
  const candleTime = parseInt(m[3]!, 36);
  if (!Number.isSafeInteger(candleTime)) return undefined;
  return { slug: m[1]!, hash: m[2]!, candleTime, leg: m[4] as OrderLeg };
}

/**
 * Which of this deployment's strategies minted `id` for an order on `market`: the id's form, the
 * slug of a strategy that trades the market, and (when two strategies share a slug) the hash of an
 * untagged intent. Ids survive a lost journal: after Redis comes back empty, the reconciler finds
 * its own orders at the exchange by them and journals them again under the right strategy.
 * One deployment per exchange account (one Redis, one key prefix: docs/operations.md), so an id of
 * this form with a configured strategy's slug on the account is this deployment's.
 */
export function minterOf(id: string, market: string, strategies: readonly { readonly name: string; readonly markets: readonly string[] }[]):
  { readonly strategy: string; readonly candleTime: number; readonly leg: OrderLeg } | undefined {
  const parts = parseClientOrderId(id);
  if (parts === undefined) return undefined;
  const candidates = strategies.filter((s) => s.markets.includes(market) && slugOf(s.name) === parts.slug);
  const chosen = candidates.length === 1 ? candidates[0]
    : candidates.find((s) => hashOf(s.name, market, parts.candleTime, '') === parts.hash);
  return chosen === undefined ? undefined : { strategy: chosen.name, candleTime: parts.candleTime, leg: parts.leg };
}

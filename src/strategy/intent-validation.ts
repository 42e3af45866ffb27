import { z } from 'zod';
import type { Interval } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import type { Intent } from '../domain/intent';
import { MARKET_NAME } from '../domain/market';
import { CLIENT_ORDER_ID_PATTERN } from '../core/client-order-id';
import type { StrategyIdentity } from './strategy-version';

/**
 * An intent as it leaves the host: validated, its Decimals normalised to the project's Decimal,
 * and stamped with the strategy and candle it came from. The executor derives the client order id
 * from (strategy, market, candleTime, leg, intent.tag) with deriveClientOrderId.
 */
export interface StampedIntent {
  readonly strategy: string;
  readonly interval: Interval;
  /** Open time (Unix seconds) of the closed candle that produced the intent. */
  readonly candleTime: number;
  readonly intent: Intent;
  /** The code version and parameters that made it, when the host knows them (journalled with the order). */
  readonly identity?: StrategyIdentity | undefined;
}

/**
 * Accepts any decimal.js instance (a strategy may import 'decimal.js' itself, whose instances are
 * not `instanceof` the project's clone) and returns the project's Decimal. Rejects floats: money
 * must be built as Decimal by the strategy, so a float never silently becomes a price.
 */
const positiveDecimal = z.custom<Decimal>((v) => Decimal.isDecimal(v), { message: 'expected a Decimal (not a number or string)' })
  .transform((v) => (v instanceof Decimal ? v : new Decimal(v as Decimal)))
  .refine((v) => v.isFinite() && v.greaterThan(0), { message: 'must be a finite Decimal > 0' });

const nonNegativeDecimal = z.custom<Decimal>((v) => Decimal.isDecimal(v), { message: 'expected a Decimal (not a number or string)' })
  .transform((v) => (v instanceof Decimal ? v : new Decimal(v as Decimal)))
  .refine((v) => v.isFinite() && !v.isNegative(), { message: 'must be a finite Decimal >= 0' });

const tag = z.string().regex(/^[A-Za-z0-9_-]{1,16}$/, 'tag: 1-16 of letters, digits, - _').optional();
const purpose = z.enum(['entry', 'exit']).optional();
const market = z.string().regex(MARKET_NAME, 'market must look like BTC_USDT');
const side = z.enum(['buy', 'sell']);

const stopLimit = z.strictObject({
  kind: z.literal('stop_limit'), market, side, amount: positiveDecimal, price: positiveDecimal,
  activationPrice: positiveDecimal, purpose, tag,
});
const oco = z.strictObject({
  kind: z.literal('oco'), market, side, amount: positiveDecimal, price: positiveDecimal,
  activationPrice: positiveDecimal, stopLimitPrice: positiveDecimal, purpose, tag,
}).superRefine((v, ctx) => {
  // The take-profit must sit on the profitable side of the stop: a sell OCO closes a long
  // (tp above, stop below), a buy OCO closes a short (tp below, stop above).
  const ok = v.side === 'sell' ? v.price.greaterThan(v.activationPrice) : v.price.lessThan(v.activationPrice);
  if (!ok) ctx.addIssue({ code: 'custom', path: ['price'], message: `oco ${v.side}: take-profit price must be ${v.side === 'sell' ? 'above' : 'below'} the stop activation price` });
});
const cancel = z.strictObject({
  kind: z.literal('cancel'), market,
  clientOrderId: z.string().regex(CLIENT_ORDER_ID_PATTERN, 'clientOrderId: 1-64 of letters, digits, - . _'),
});

// A trailing stop (docs/trailing-stops.md): distances in the money currency, all Decimals.
const trailingStop = z.strictObject({
  kind: z.literal('trailing_stop'), market, side, amount: positiveDecimal, trail: positiveDecimal, step: positiveDecimal,
  limitOffset: nonNegativeDecimal, purpose, tag,
});

const intentSchema = z.discriminatedUnion('kind', [stopLimit, oco, cancel, trailingStop]);
const batchSchema = z.array(intentSchema);

export type IntentCheck = { ok: true; intents: Intent[] } | { ok: false; reason: string };

/**
 * Validates what onCandle returned: an array of well-formed intents, each on one of the
 * strategy's markets, and no two orders sharing a tag on one market (their client order ids
 * would collide, and the second would be refused as a duplicate).
 */
export function validateIntents(value: unknown, markets: ReadonlySet<string>): IntentCheck {
  // The hand-written checks accept the common shapes at a fraction of zod's cost; anything they do
  // not accept (errors, foreign Decimal instances, odd objects) goes to zod, which decides and words the error.
  let intents = fastParseBatch(value);
  if (intents === undefined) {
    const parsed = batchSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? '' : issue.path.join('.');
      return { ok: false, reason: `invalid intent${where === '' ? '' : ` at ${where}`}: ${issue?.message ?? 'unknown'}` };
    }
    // zod output keeps only the keys present in the input, so the cast is honest under exactOptionalPropertyTypes.
    intents = parsed.data as Intent[];
  }
  const seen = intents.length > 1 ? new Set<string>() : undefined;
  for (let i = 0; i < intents.length; i++) {
    const intent = intents[i] as Intent;
    if (!markets.has(intent.market)) return { ok: false, reason: `intent ${i}: market ${intent.market} is not one of this strategy's markets` };
    if (intent.kind === 'cancel' || seen === undefined) continue;
    const key = `${intent.market}\u0000${intent.tag ?? ''}`;
    if (seen.has(key)) return { ok: false, reason: `intent ${i}: two orders on ${intent.market} with tag "${intent.tag ?? ''}" on one candle (give each a distinct tag)` };
    seen.add(key);
  }
  return { ok: true, intents };
}

// ---- fast path -------------------------------------------------------------------------------

/**
 * The fast path of intent validation (intent-validation.ts): the same checks as its zod schemas,
 * hand-written for the shapes strategies return, because zod cost ~20 µs per intent batch in a
 * backtest. It only ever ACCEPTS: it returns copies of the intents (as zod would) when every one
 * is valid and plain (project Decimals, plain objects), and undefined otherwise, leaving the
 * decision and the error message to zod. So it can never accept what zod refuses. Trailing stops
 * (rare: one per position) always take zod's path.
 */
const TAG = /^[A-Za-z0-9_-]{1,16}$/;
const STOP_LIMIT_KEYS: ReadonlySet<string> = new Set(['kind', 'market', 'side', 'amount', 'price', 'activationPrice', 'purpose', 'tag']);
const OCO_KEYS: ReadonlySet<string> = new Set([...STOP_LIMIT_KEYS, 'stopLimitPrice']);
const CANCEL_KEYS: ReadonlySet<string> = new Set(['kind', 'market', 'clientOrderId']);

export function fastParseBatch(value: unknown): Intent[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Intent[] = new Array<Intent>(value.length);
  for (let i = 0; i < value.length; i++) {
    const intent = fastParseIntent(value[i]);
    if (intent === undefined) return undefined;
    out[i] = intent;
  }
  return out;
}

function fastParseIntent(v: unknown): Intent | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const o = v as Record<string, unknown>;
  const kind = o['kind'];
  const keys = kind === 'stop_limit' ? STOP_LIMIT_KEYS : kind === 'oco' ? OCO_KEYS : kind === 'cancel' ? CANCEL_KEYS : undefined;
  if (keys === undefined || !onlyKeys(o, keys)) return undefined;
  const market = o['market'];
  if (typeof market !== 'string' || !MARKET_NAME.test(market)) return undefined;
  if (kind === 'cancel') {
    const id = o['clientOrderId'];
    return typeof id === 'string' && CLIENT_ORDER_ID_PATTERN.test(id) ? ({ ...o } as unknown as Intent) : undefined;
  }
  const side = o['side'];
  if (side !== 'buy' && side !== 'sell') return undefined;
  const purpose = o['purpose'];
  if (purpose !== undefined && purpose !== 'entry' && purpose !== 'exit') return undefined;
  const tag = o['tag'];
  if (tag !== undefined && (typeof tag !== 'string' || !TAG.test(tag))) return undefined;
  const price = o['price'];
  const activationPrice = o['activationPrice'];
  if (!positive(o['amount']) || !positive(price) || !positive(activationPrice)) return undefined;
  if (kind === 'oco') {
    if (!positive(o['stopLimitPrice'])) return undefined;
    // The take-profit must sit on the profitable side of the stop (the schema's superRefine).
    const ok = side === 'sell' ? price.greaterThan(activationPrice) : price.lessThan(activationPrice);
    if (!ok) return undefined;
  }
  return { ...o } as unknown as Intent;
}

/** Every own key is allowed, and every required one (all but purpose and tag) is present. */
function onlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  let present = 0;
  for (const key of Object.keys(o)) {
    if (!allowed.has(key)) return false;
    if (key !== 'purpose' && key !== 'tag') present++;
  }
  const required = allowed.size - (allowed.has('purpose') ? 2 : 0);
  return present === required;
}

/** A project Decimal, finite and > 0 (other decimal.js instances take zod's path, which converts them). */
function positive(v: unknown): v is Decimal {
  return v instanceof Decimal && v.isFinite() && v.isPositive() && !v.isZero();
}

import { z } from 'zod';
import type { Interval } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import type { Intent } from '../domain/intent';
import { MARKET_NAME } from '../domain/market';
import { CLIENT_ORDER_ID_PATTERN } from '../core/client-order-id';

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
}

/**
 * Accepts any decimal.js instance (a strategy may import 'decimal.js' itself, whose instances are
 * not `instanceof` the project's clone) and returns the project's Decimal. Rejects floats: money
 * must be built as Decimal by the strategy, so a float never silently becomes a price.
 */
const positiveDecimal = z.custom<Decimal>((v) => Decimal.isDecimal(v), { message: 'expected a Decimal (not a number or string)' })
  .transform((v) => (v instanceof Decimal ? v : new Decimal(v as Decimal)))
  .refine((v) => v.isFinite() && v.greaterThan(0), { message: 'must be a finite Decimal > 0' });

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

const intentSchema = z.discriminatedUnion('kind', [stopLimit, oco, cancel]);
const batchSchema = z.array(intentSchema);

export type IntentCheck = { ok: true; intents: Intent[] } | { ok: false; reason: string };

/**
 * Validates what onCandle returned: an array of well-formed intents, each on one of the
 * strategy's markets, and no two orders sharing a tag on one market (their client order ids
 * would collide, and the second would be refused as a duplicate).
 */
export function validateIntents(value: unknown, markets: ReadonlySet<string>): IntentCheck {
  const parsed = batchSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : issue.path.join('.');
    return { ok: false, reason: `invalid intent${where === '' ? '' : ` at ${where}`}: ${issue?.message ?? 'unknown'}` };
  }
  const seen = new Set<string>();
  for (const [i, intent] of parsed.data.entries()) {
    if (!markets.has(intent.market)) return { ok: false, reason: `intent ${i}: market ${intent.market} is not one of this strategy's markets` };
    if (intent.kind === 'cancel') continue;
    const key = `${intent.market}\u0000${intent.tag ?? ''}`;
    if (seen.has(key)) return { ok: false, reason: `intent ${i}: two orders on ${intent.market} with tag "${intent.tag ?? ''}" on one candle (give each a distinct tag)` };
    seen.add(key);
  }
  // zod output keeps only the keys present in the input, so the cast is honest under exactOptionalPropertyTypes.
  return { ok: true, intents: parsed.data as Intent[] };
}

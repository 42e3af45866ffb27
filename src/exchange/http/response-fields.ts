import { z } from 'zod';
import { parseDecimal, type Decimal } from '../../domain/decimal';

/** Building blocks of the response schemas (responses.ts, order-responses.ts). */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Wraps an object schema so it accepts the venue's other spellings: `aliases` maps each canonical
 * field to the alternative names the exchange uses for it (snake_case in the spec, camelCase in the
 * exchange's documentation). The first present spelling wins. This is the one place per endpoint
 * where the spellings are reconciled.
 */
export function withAliases<T extends z.ZodType>(aliases: Readonly<Record<string, readonly string[]>>, schema: T) {
  return z.preprocess((input) => {
    if (!isRecord(input)) return input;
    const out: Record<string, unknown> = { ...input };
    for (const [canonical, alternatives] of Object.entries(aliases)) {
      if (out[canonical] !== undefined) continue;
      for (const alt of alternatives) {
        if (input[alt] !== undefined) {
          out[canonical] = input[alt];
          break;
        }
      }
    }
    return out;
  }, schema);
}

/** A non-negative decimal from the venue's string (numbers tolerated); never a float in our hands. */
export const dec = z.union([z.string(), z.number()]).transform((v, ctx): Decimal => {
  try {
    return parseDecimal(v, 'value');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : 'not a decimal' });
    return z.NEVER;
  }
});

/** An integer that some endpoints send as a string ("stockPrec": "3"). */
export const intLike = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);

/** Unix seconds, possibly fractional (`1595792396.165973`). */
export const seconds = z.number().nonnegative();

/** Percent text from the venue ("0.1" = 0.1 %) -> ratio (0.001). */
export const percentAsRatio = dec.transform((d) => d.dividedBy(100));

/** The venue sends "" for "no client order id". */
export const optionalClientOrderId = z
  .string()
  .nullish()
  .transform((v) => (v === '' || v === null || v === undefined ? undefined : v));

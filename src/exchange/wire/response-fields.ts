import { z } from 'zod';
import { parseDecimal, type Decimal } from '../../domain/decimal';

/** Building blocks of the answer schemas (responses.ts, order-responses.ts). */

/**
 * An object read under a dialect's field names and handed on under the canonical names: `names`
 * maps each canonical field of `shape` to its wire name (null: the dialect does not send it; it
 * reads as absent). Only those wire names are read, so an answer spelled in another dialect fails
 * here (a missing required field) instead of being half understood. Errors name the wire field.
 */
export function wireObject<S extends z.ZodRawShape>(
  names: Readonly<Record<string, string | null>>,
  shape: S,
): z.ZodType<z.output<z.ZodObject<S>>> {
  const read: [string, string][] = [];
  const wire: Record<string, z.ZodType> = {};
  for (const key of Object.keys(shape)) {
    const name = names[key];
    const schema = shape[key] as z.ZodType;
    if (name === undefined) throw new Error(`wireObject: no wire name for ${key}`);
    if (name === null) {
      if (!schema.safeParse(undefined).success) throw new Error(`wireObject: ${key} is required but not sent in this dialect`);
      continue;
    }
    wire[name] = schema;
    read.push([key, name]);
  }
  return z.object(wire).transform((w) => {
    const out: Record<string, unknown> = {};
    for (const [key, name] of read) {
      const v = w[name];
      if (v !== undefined) out[key] = v;
    }
    return out;
  }) as unknown as z.ZodType<z.output<z.ZodObject<S>>>;
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

/**
 * Row caps of list answers: the API's documented page maximum. An answer with more rows is not a page
 * of this API (a hostile or broken server), so it is a BadResponseError, counted before any row is parsed.
 */
export const MAX_ROWS = { kline: 1440, orders: 100, history: 500, markets: 10_000 } as const;

/** An array of at most `max` rows, each parsed by `row` (the count is checked first, cheaply). */
export function cappedArray<T extends z.ZodType>(row: T, max: number): z.ZodType<z.output<T>[]> {
  return z.array(z.unknown()).max(max, `more than ${max} rows (the API's page maximum)`).pipe(z.array(row)) as unknown as z.ZodType<z.output<T>[]>;
}

/** Rows keyed by market (history, deals): at most `max` rows in all. */
export function cappedByMarket<T extends z.ZodType>(row: T, max: number): z.ZodType<Record<string, z.output<T>[]>> {
  return z.record(z.string(), z.array(z.unknown()))
    .refine((byMarket) => Object.values(byMarket).reduce((n, rows) => n + rows.length, 0) <= max, `more than ${max} rows (the API's page maximum)`)
    .pipe(z.record(z.string(), z.array(row))) as unknown as z.ZodType<Record<string, z.output<T>[]>>;
}

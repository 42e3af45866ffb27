import { z } from 'zod';

/** A number in the config as text: a string, or a YAML number written back as one (trimmed). */
export const numberText = z.union([z.string(), z.number()]).transform((v) => String(v).trim());

/** A non-negative plain decimal (`1000`, `0.05`, `.5`): no sign, no exponent. */
export function isPlainDecimal(v: string): boolean {
  return /^(?:\d+\.?\d*|\.\d+)$/.test(v);
}

/**
 * A non-negative plain decimal in the config: money and ratios stay exact strings until they become
 * Decimals. A narrower range refines `numberText` with `isPlainDecimal` first (a Decimal of "abc" throws).
 */
export const decimalString = numberText.refine(isPlainDecimal, { message: 'must be a non-negative plain decimal number, e.g. "1000" or "0.05"' });

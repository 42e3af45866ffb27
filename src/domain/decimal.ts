import DecimalJs from 'decimal.js';
import { InvalidDecimalError } from './tradebot-error';

/**
 * Money is decimal, never a JavaScript float. One Decimal constructor configured for the whole
 * project: enough precision for prices times amounts, and toString() never uses exponent notation
 * (the exchange expects plain decimal strings).
 */
export const Decimal = DecimalJs.clone({ precision: 40, toExpNeg: -40, toExpPos: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = InstanceType<typeof Decimal>;

const PLAIN_DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)$/;

/**
 * Parses a price or amount from the exchange, a config file or a strategy. Accepts a plain decimal
 * string, or a finite number (converted through its shortest string form, as the exchange accepts
 * numbers in requests). Fails fast on NaN, infinities, exponent strings and negatives (unless allowed).
 */
export function parseDecimal(value: unknown, field: string, opts: { allowNegative?: boolean } = {}): Decimal {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = new Decimal(value).toString();
  else if (value instanceof Decimal) text = value.toString();
  else throw new InvalidDecimalError(`${field}: expected a decimal string or number, got ${describe(value)}`, { field });
  if (!PLAIN_DECIMAL.test(text)) {
    throw new InvalidDecimalError(`${field}: "${text}" is not a plain decimal number`, { field, value: text });
  }
  const parsed = new Decimal(text);
  if (!opts.allowNegative && parsed.isNegative() && !parsed.isZero()) {
    throw new InvalidDecimalError(`${field}: must not be negative, got ${text}`, { field, value: text });
  }
  return parsed;
}

/**
 * `parseDecimal(value, field, opts).toString()` for a Decimal of this module's constructor, without
 * building a second Decimal: toString() is already the normal form that parsing and printing it
 * again would give, so only the checks remain (plain decimal: no NaN/Infinity/exponent; sign).
 */
export function checkedDecimalText(value: Decimal, field: string, opts: { allowNegative?: boolean } = {}): string {
  const text = value.toString();
  if (!PLAIN_DECIMAL.test(text)) {
    throw new InvalidDecimalError(`${field}: "${text}" is not a plain decimal number`, { field, value: text });
  }
  if (!opts.allowNegative && value.isNegative() && !value.isZero()) {
    throw new InvalidDecimalError(`${field}: must not be negative, got ${text}`, { field, value: text });
  }
  return text;
}

/** Number of digits after the point allowed by a precision like "2" (moneyPrec) -> step 0.01. */
export function stepForPrecision(decimals: number): Decimal {
  return new Decimal(1).dividedBy(new Decimal(10).pow(decimals));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return String(value);
  return typeof value;
}

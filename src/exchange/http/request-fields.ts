import { z } from 'zod';
import { CLIENT_ORDER_ID_MAX_LENGTH } from '../../core/client-order-id';
import { Decimal } from '../../domain/decimal';
import { MARKET_NAME } from '../../domain/market';

/**
 * Field rules shared by the request schemas of request-rules.ts. Every message reads like the
 * exchange's own (`Side field should contain only 'buy' or 'sell' values.`), so an operator sees the
 * same text whether our client refused the request locally or the (simulated) exchange did.
 */

/** "activation_price" -> "Activation price", the way the exchange names fields in its messages. */
export function label(field: string): string {
  const words = field.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const required = (field: string) => `${label(field)} field is required.`;

/** Integer strings are accepted because query parameters (kline) always arrive as text. */
function toInt(v: unknown): unknown {
  return typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
}

/** Integer in [min, max]; `name` is what the exchange says ("limit" -> "The limit may not be greater than 100."). */
export function intRange(field: string, min: number, max: number) {
  const name = label(field).toLowerCase();
  return z.preprocess(
    toInt,
    z
      .number({ error: (i) => (i.input === undefined ? required(field) : `The ${name} must be an integer.`) })
      .int({ error: `The ${name} must be an integer.` })
      .min(min, { error: `The ${name} must be at least ${min}.` })
      .max(max, { error: `The ${name} may not be greater than ${max}.` }),
  );
}

/** Unix seconds (non-negative integer). */
export function unixSeconds(field: string) {
  return intRange(field, 0, 99_999_999_999);
}

/** Positive integer id (order id, OCO id); numeric strings are accepted as the exchange does. */
export function positiveId(field: string) {
  return z.preprocess(
    toInt,
    z
      .number({ error: (i) => (i.input === undefined ? required(field) : `${label(field)} field should be an integer.`) })
      .int({ error: `${label(field)} field should be an integer.` })
      .positive({ error: `${label(field)} field should be an integer.` })
      .max(Number.MAX_SAFE_INTEGER, { error: `${label(field)} field should be an integer.` }),
  );
}

export const market = z
  .string({ error: (i) => (i.input === undefined ? required('market') : 'Market field should be a string.') })
  .min(1, { error: 'Market field should not be empty string.', abort: true })
  .regex(MARKET_NAME, { error: 'Market field format is invalid.' });

export const side = z.enum(['buy', 'sell'], {
  error: (i) => (i.input === undefined ? required('side') : "Side field should contain only 'buy' or 'sell' values."),
});

export const STP_MODES = ['no', 'cancel_both', 'cancel_new', 'cancel_old'] as const;
export const stp = z.enum(STP_MODES, {
  error: "Stp field should contain only 'no', 'cancel_both', 'cancel_new' or 'cancel_old' values.",
});

export const clientOrderId = z
  .string({ error: 'Client order id field should be a string.' })
  .max(CLIENT_ORDER_ID_MAX_LENGTH, { error: `Client order id may not be greater than ${CLIENT_ORDER_ID_MAX_LENGTH} characters.`, abort: true })
  // Charset only; the length rule above already ran (CLIENT_ORDER_ID_PATTERN is the combined rule).
  .regex(/^[A-Za-z0-9._-]+$/, {
    error: 'Client order id field should contain only letters, digits, dashes, dots and underscores.',
  });

const PLAIN_DECIMAL = /^(?:\d+\.?\d*|\.\d+)$/;
const NON_ZERO_DIGIT = /[1-9]/;

/**
 * An amount or price: a plain decimal string, a finite number or a Decimal, strictly positive.
 * The value is normalised to a plain decimal string, so no float ever reaches the wire.
 */
export function positiveDecimal(field: string) {
  const name = label(field);
  return z.unknown().transform((v, ctx): string => {
    let text: string | undefined;
    if (v === undefined || v === null) {
      ctx.addIssue({ code: 'custom', message: required(field) });
      return z.NEVER;
    }
    if (typeof v === 'string') {
      text = v.trim();
      // Hot path (every order): a plain positive decimal string is already canonical; skip decimal.js.
      if (PLAIN_DECIMAL.test(text) && NON_ZERO_DIGIT.test(text)) return text;
    }
    else if (typeof v === 'number' && Number.isFinite(v)) text = new Decimal(v).toString();
    else if (v instanceof Decimal && v.isFinite()) text = v.toString();
    if (text === undefined || !PLAIN_DECIMAL.test(text.replace(/^-/, ''))) {
      ctx.addIssue({ code: 'custom', message: `${name} field should be a numeric string or number.` });
      return z.NEVER;
    }
    const d = new Decimal(text);
    if (!d.isPositive() || d.isZero()) {
      ctx.addIssue({ code: 'custom', message: `${name} should be greater than 0.` });
      return z.NEVER;
    }
    return d.toString();
  });
}

export const ticker = z
  .string({ error: 'Ticker field should be a string.' })
  .regex(/^[A-Z0-9]{1,20}$/, { error: 'Ticker field format is invalid.' });

export const bboRole = z.preprocess(
  toInt,
  z.union([z.literal(1), z.literal(2)], { error: 'Bbo role field should be 1 or 2.' }),
);

export const KILL_SWITCH_TYPES = ['spot', 'margin', 'futures'] as const;

/**
 * Kill-switch timeout: a string of whole seconds "5".."600", or null to delete the timer. The key
 * must be present. The string "null" (what ccxt sends to delete) is read as null.
 */
export const killSwitchTimeout = z.unknown().transform((v, ctx): string | null => {
  if (v === undefined) {
    ctx.addIssue({ code: 'custom', message: 'Timeout field is required.' });
    return z.NEVER;
  }
  if (v === null || v === 'null') return null;
  if (typeof v !== 'string') {
    ctx.addIssue({ code: 'custom', message: 'Timeout field should be a string.' });
    return z.NEVER;
  }
  if (!/^\d{1,6}$/.test(v)) {
    ctx.addIssue({ code: 'custom', message: 'Timeout field should be a whole number of seconds.' });
    return z.NEVER;
  }
  const n = Number(v);
  if (n < 5) ctx.addIssue({ code: 'custom', message: 'Timeout should be at least 5.' });
  else if (n > 600) ctx.addIssue({ code: 'custom', message: 'Timeout may not be greater than 600.' });
  else return String(n);
  return z.NEVER;
});

const TYPES_MESSAGE = "Types field should contain only 'spot', 'margin' or 'futures' values.";
export const killSwitchTypes = z
  .array(z.enum(KILL_SWITCH_TYPES, { error: TYPES_MESSAGE }), { error: TYPES_MESSAGE })
  .min(1, { error: 'Types field should contain 1 to 3 values.' })
  .max(3, { error: 'Types field should contain 1 to 3 values.' })
  .nullable();

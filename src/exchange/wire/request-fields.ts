import { z } from 'zod';
import { CLIENT_ORDER_ID_MAX_LENGTH } from '../../core/client-order-id';
import { INTERVALS } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { MARKET_NAME } from '../../domain/market';

/**
 * The rule of each kind of request field, used by the endpoint table (endpoints.ts): a zod
 * schema that normalises the value and names every problem with the exchange's own message
 * (`Side field should contain only 'buy' or 'sell' values.`), so an operator sees the same text
 * whether our client refused a request locally or the (simulated) exchange did.
 */
export interface FieldRule {
  readonly schema: (field: string) => z.ZodType;
}

/** "activationPrice" / "activation_price" -> "Activation price", the way the exchange names fields in its messages. */
export function label(field: string): string {
  const words = field.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const required = (field: string) => `${label(field)} field is required.`;

/** Integer strings are accepted because query parameters (kline) always arrive as text. */
function toInt(v: unknown): unknown {
  return typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
}

/** Integer in [min, max]; the message names the field as the exchange does ("The limit may not be greater than 100."). */
export function intRange(min: number, max: number): FieldRule {
  return {
    schema: (field) => {
      const name = label(field).toLowerCase();
      return z.preprocess(
        toInt,
        z
          .number({ error: (i) => (i.input === undefined ? required(field) : `The ${name} must be an integer.`) })
          .int({ error: `The ${name} must be an integer.` })
          .min(min, { error: `The ${name} must be at least ${min}.` })
          .max(max, { error: `The ${name} may not be greater than ${max}.` }),
      );
    },
  };
}

/** Unix seconds (non-negative integer). */
export const UNIX_SECONDS = intRange(0, 99_999_999_999);

/** Positive integer id (order id, OCO id); numeric strings are accepted as the exchange does. */
export const POSITIVE_ID: FieldRule = {
  schema: (field) => z.preprocess(
    toInt,
    z
      .number({ error: (i) => (i.input === undefined ? required(field) : `${label(field)} field should be an integer.`) })
      .int({ error: `${label(field)} field should be an integer.` })
      .positive({ error: `${label(field)} field should be an integer.` })
      .max(Number.MAX_SAFE_INTEGER, { error: `${label(field)} field should be an integer.` }),
  ),
};

export const MARKET: FieldRule = {
  schema: (field) => z
    .string({ error: (i) => (i.input === undefined ? required(field) : `${label(field)} field should be a string.`) })
    .min(1, { error: `${label(field)} field should not be empty string.`, abort: true })
    .regex(MARKET_NAME, { error: `${label(field)} field format is invalid.` }),
};

/** A closed set of strings; `message` is the exchange's wording. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: (field: string) => string): FieldRule {
  return {
    schema: (field) => z.enum(values, { error: (i) => (i.input === undefined ? required(field) : message(field)) }),
  };
}

export const SIDE = oneOf(['buy', 'sell'], (f) => `${label(f)} field should contain only 'buy' or 'sell' values.`);

/** The documented abbreviations and the legacy long forms the venue still accepts. */
export const STP_MODES = ['no', 'cb', 'cn', 'co', 'cancel_both', 'cancel_new', 'cancel_old'] as const;
export const STP = oneOf(STP_MODES, (f) => `${label(f)} field should contain only 'no', 'cb', 'cn' or 'co' values.`);

export const POSITION_SIDE = oneOf(['LONG', 'SHORT', 'BOTH'], (f) => `${label(f)} field should contain only 'LONG', 'SHORT' or 'BOTH' values.`);

export const HISTORY_STATUS = oneOf(
  ['ALL', 'FILLED', 'CANCELED', 'PARTIALLY_FILLED'],
  (f) => `${label(f)} field should contain only 'ALL', 'FILLED', 'CANCELED' or 'PARTIALLY_FILLED' values.`,
);

/** The balances of main-account/transfer (`from`, `to`). */
export const BALANCE_ACCOUNTS = ['main', 'spot', 'collateral'] as const;
export const BALANCE_ACCOUNT = oneOf(BALANCE_ACCOUNTS, (f) => `The selected ${f} is invalid.`);

/** main-account/transfer's older `method` (main <-> spot, main <-> collateral). */
export const TRANSFER_METHODS = ['deposit', 'withdraw', 'collateral-deposit', 'collateral-withdraw'] as const;
export const TRANSFER_METHOD = oneOf(TRANSFER_METHODS, (f) => `The selected ${f} is invalid.`);

export const INTERVAL = oneOf(INTERVALS, (f) => `${label(f)} field should contain only one of: ${INTERVALS.join(', ')}.`);

const CLIENT_ORDER_ID_CHARS = /^[A-Za-z0-9._-]+$/;
export const CLIENT_ORDER_ID: FieldRule = {
  schema: (field) => z
    .string({ error: `${label(field)} field should be a string.` })
    .max(CLIENT_ORDER_ID_MAX_LENGTH, { error: `${label(field)} may not be greater than ${CLIENT_ORDER_ID_MAX_LENGTH} characters.`, abort: true })
    // Charset only; the length rule above already ran (CLIENT_ORDER_ID_PATTERN is the combined rule).
    .regex(CLIENT_ORDER_ID_CHARS, { error: `${label(field)} field should contain only letters, digits, dashes, dots and underscores.` }),
};

export const BOOLEAN: FieldRule = {
  schema: (field) => z.boolean({ error: `${label(field)} field should be a boolean.` }),
};

const TICKER_FORMAT = /^[A-Z0-9]{1,20}$/;
export const TICKER: FieldRule = {
  schema: (field) => z
    .string({ error: `${label(field)} field should be a string.` })
    .regex(TICKER_FORMAT, { error: `${label(field)} field format is invalid.` }),
};

export const NAME_255: FieldRule = {
  schema: (field) => z
    .string({ error: `${label(field)} field should be a string.` })
    .max(255, { error: `The ${label(field).toLowerCase()} may not be greater than 255 characters.` }),
};

export const BBO_ROLE: FieldRule = {
  schema: (field) => z.preprocess(toInt, z.union([z.literal(1), z.literal(2)], { error: `${label(field)} field should be 1 or 2.` })),
};

const PLAIN_DECIMAL = /^(?:\d+\.?\d*|\.\d+)$/;
const NON_ZERO_DIGIT = /[1-9]/;

/**
 * An amount or price: a plain decimal string, a finite number or a Decimal, strictly positive.
 * The value is normalised to a plain decimal string, so no float ever reaches the wire.
 */
export const POSITIVE_DECIMAL: FieldRule = {
  schema: (field) => {
    const name = label(field);
    return z.unknown().transform((v, ctx): string => {
      let text: string | undefined;
      if (v === undefined || v === null) {
        ctx.addIssue({ code: 'custom', message: required(field) });
        return z.NEVER;
      }
      if (typeof v === 'string') {
        text = v.trim();
        if (PLAIN_DECIMAL.test(text) && NON_ZERO_DIGIT.test(text)) return text;
      }
      else if (typeof v === 'number' && Number.isFinite(v)) text = new Decimal(v).toString();
      else if (v instanceof Decimal && v.isFinite()) text = v.toString();
      if (text === undefined || !PLAIN_DECIMAL.test(text.replace(/^-/, ''))) {
        ctx.addIssue({ code: 'custom', message: `${name} field should be numeric string or number.` });
        return z.NEVER;
      }
      const d = new Decimal(text);
      if (!d.isPositive() || d.isZero()) {
        ctx.addIssue({ code: 'custom', message: `${name} should be greater than 0.` });
        return z.NEVER;
      }
      return d.toString();
    });
  },
};

export const KILL_SWITCH_TYPES = ['spot', 'margin', 'futures'] as const;

/**
 * Kill-switch timeout: a string of whole seconds "5".."600", or null to delete the timer. The key
 * must be present. The string "null" (what ccxt sends to delete) is read as null.
 */
export const KILL_SWITCH_TIMEOUT: FieldRule = {
  schema: (field) => z.unknown().transform((v, ctx): string | null => {
    const name = label(field);
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: required(field) });
      return z.NEVER;
    }
    if (v === null || v === 'null') return null;
    if (typeof v !== 'string') {
      ctx.addIssue({ code: 'custom', message: `${name} field should be a string.` });
      return z.NEVER;
    }
    if (!/^\d{1,6}$/.test(v)) {
      ctx.addIssue({ code: 'custom', message: `${name} field should be a whole number of seconds.` });
      return z.NEVER;
    }
    const n = Number(v);
    if (n < 5) ctx.addIssue({ code: 'custom', message: `${name} should be at least 5.` });
    else if (n > 600) ctx.addIssue({ code: 'custom', message: `${name} may not be greater than 600.` });
    else return String(n);
    return z.NEVER;
  }),
};

export const KILL_SWITCH_TYPE_LIST: FieldRule = {
  schema: (field) => {
    const message = `${label(field)} field should contain only 'spot', 'margin' or 'futures' values.`;
    return z
      .array(z.enum(KILL_SWITCH_TYPES, { error: message }), { error: message })
      .min(1, { error: `${label(field)} field should contain 1 to 3 values.` })
      .max(3, { error: `${label(field)} field should contain 1 to 3 values.` })
      .nullable();
  },
};

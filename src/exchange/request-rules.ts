import { z } from 'zod';
import { INTERVALS } from '../domain/candle';
import type { EndpointId } from './http/endpoints';
import {
  bboRole, clientOrderId, intRange, killSwitchTimeout, killSwitchTypes, market, positiveDecimal, positiveId, side,
  stp, ticker, unixSeconds,
} from './http/request-fields';
import { fastCheck } from './request-rules-fast';

/**
 * The API's request rules, one zod schema per endpoint of endpoints.ts. The client checks every
 * request here before it touches the network, and the simulated exchange checks every incoming
 * body here to answer code 30 `Validation failed` with the same field messages.
 *
 * Field spelling: callers may use the spec's snake_case (`client_order_id`, `activation_price`,
 * `stop_limit_price`, `order_id`) or the exchange documentation's camelCase (`clientOrderId`, ...).
 * `checkRequest` accepts both and returns the value under ONE canonical spelling: the snake_case
 * name for these four fields on every endpoint (the spec's naming of order fields), and the
 * documentation's name for everything else (`bboRole`, `startDate`, `reduceOnly`, ...). Field errors
 * are reported under the name the caller used. The wire spelling is chosen later, by the client.
 */

/** canonical (snake) name -> the documentation's camelCase alias. */
export const FIELD_ALIASES = {
  client_order_id: 'clientOrderId',
  activation_price: 'activationPrice',
  stop_limit_price: 'stopLimitPrice',
  order_id: 'orderId',
} as const;
export type AliasedField = keyof typeof FIELD_ALIASES;

const CAMEL_TO_SNAKE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FIELD_ALIASES).map(([snake, camel]) => [camel, snake]),
);

/** Fields of the signed envelope; they belong to signing, not to an endpoint's parameters. */
const ENVELOPE_FIELDS = new Set(['request', 'nonce', 'nonceWindow']);

const limit100 = intRange('limit', 1, 100);
const offset10k = intRange('offset', 0, 10_000);

// Rules the spec gives (kline, codes, mining, stop_limit) and the extra facts (everything else).
const interval = z.enum(INTERVALS, {
  error: `Interval field should contain only one of: ${INTERVALS.join(', ')}.`,
});

const klineQuery = z
  .object({
    market,
    start: unixSeconds('start').optional(),
    end: unixSeconds('end').optional(),
    interval: interval.optional(),
    limit: intRange('limit', 1, 1440).optional(),
  })
  .superRefine((q, ctx) => {
    // The spec allows start == end ("must not be greater than end").
    if (q.start !== undefined && q.end !== undefined && q.start > q.end) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'End field must be greater then start.' });
    }
  });

const empty = z.object({});

const stopLimitBody = z.object({
  market,
  side,
  amount: positiveDecimal('amount'),
  price: positiveDecimal('price'),
  activation_price: positiveDecimal('activation_price'),
  client_order_id: clientOrderId.optional(),
  bboRole: bboRole.optional(),
  stp: stp.optional(),
});

const collateralOcoBody = z.object({
  market,
  side,
  amount: positiveDecimal('amount'),
  price: positiveDecimal('price'),
  activation_price: positiveDecimal('activation_price'),
  stop_limit_price: positiveDecimal('stop_limit_price'),
  client_order_id: clientOrderId.optional(),
  reduceOnly: z.boolean({ error: 'Reduce only field should be a boolean.' }).optional(),
  positionSide: z.enum(['LONG', 'SHORT', 'BOTH'], { error: "Position side field should contain only 'LONG', 'SHORT' or 'BOTH' values." }).optional(),
  stp: stp.optional(),
});

/** Cancel (order or OCO): market plus exactly one of order_id / client_order_id. */
const cancelBody = z
  .object({ market, order_id: positiveId('order_id').optional(), client_order_id: clientOrderId.optional() })
  .superRefine((b, ctx) => {
    if (b.order_id === undefined && b.client_order_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['order_id'], message: 'The order id field is required when client order id is not present.' });
    } else if (b.order_id !== undefined && b.client_order_id !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['order_id'], message: 'Only one of order id and client order id may be given.' });
    }
  });

const activeOrdersBody = z.object({
  market: market.optional(),
  order_id: positiveId('order_id').optional(),
  client_order_id: clientOrderId.optional(),
  limit: limit100.optional(),
  offset: offset10k.optional(),
});

const ocoListBody = z.object({ market, limit: limit100.optional(), offset: offset10k.optional() });

function dateRange<T extends { startDate?: number | undefined; endDate?: number | undefined }>(b: T, ctx: z.RefinementCtx): void {
  if (b.startDate !== undefined && b.endDate !== undefined && b.startDate > b.endDate) {
    ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'End date field must be greater then start date.' });
  }
}

const historyBody = z
  .object({
    market: market.optional(),
    order_id: positiveId('order_id').optional(),
    client_order_id: clientOrderId.optional(),
    status: z.enum(['ALL', 'FILLED', 'CANCELED', 'PARTIALLY_FILLED'], {
      error: "Status field should contain only 'ALL', 'FILLED', 'CANCELED' or 'PARTIALLY_FILLED' values.",
    }).optional(),
    startDate: unixSeconds('startDate').optional(),
    endDate: unixSeconds('endDate').optional(),
    limit: intRange('limit', 1, 500).optional(),
    offset: offset10k.optional(),
  })
  .superRefine(dateRange);

const dealsBody = z
  .object({
    market: market.optional(),
    client_order_id: clientOrderId.optional(),
    startDate: unixSeconds('startDate').optional(),
    endDate: unixSeconds('endDate').optional(),
    limit: intRange('limit', 1, 500).optional(),
    offset: offset10k.optional(),
  })
  .superRefine(dateRange);

const killSwitchBody = z.object({ market, timeout: killSwitchTimeout, types: killSwitchTypes.optional() });

const SCHEMAS: Readonly<Record<EndpointId, z.ZodType<Record<string, unknown>>>> = {
  kline: klineQuery,
  ping: empty,
  time: empty,
  markets: empty,
  tradeBalance: z.object({ ticker: ticker.optional() }),
  mainBalance: empty,
  codes: z.object({ limit: limit100.optional(), offset: offset10k.optional() }),
  miningAccounts: z.object({
    name: z.string({ error: 'Name field should be a string.' }).max(255, { error: 'The name may not be greater than 255 characters.' }).optional(),
  }),
  jwt: empty,
  websocketToken: empty,
  activeOrders: activeOrdersBody,
  ocoList: ocoListBody,
  ocoListAlt: ocoListBody,
  orderHistory: historyBody,
  executedDeals: dealsBody,
  killSwitchStatus: z.object({ market: market.optional() }),
  stopLimit: stopLimitBody,
  collateralOco: collateralOcoBody,
  cancelOrder: cancelBody,
  cancelOco: cancelBody,
  killSwitch: killSwitchBody,
};

export type CheckResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly fieldErrors: Record<string, string[]> };

/**
 * Checks the parameters of one request to `endpoint` (body fields or query parameters, without the
 * signing envelope `request`/`nonce`/`nonceWindow`, which are ignored if present; unknown fields
 * are dropped, as the exchange ignores them). On success `value` holds the normalised parameters:
 * canonical spelling, amounts and prices as plain decimal strings, integers as numbers.
 */
export function checkRequest(endpoint: EndpointId, params: unknown): CheckResult {
  // Hot endpoints first through the hand-written rules (same rules, same value); they only accept.
  const fast = fastCheck(endpoint, params);
  if (fast !== undefined) return { ok: true, value: fast };
  return checkWithSchema(endpoint, params);
}

/** checkRequest through the zod schema alone: the reference the fast path is tested against. */
export function checkWithSchema(endpoint: EndpointId, params: unknown): CheckResult {
  const schema = SCHEMAS[endpoint];
  if (params === undefined || params === null) params = {};
  if (typeof params !== 'object' || Array.isArray(params)) {
    return { ok: false, fieldErrors: { request: ['The request parameters should be an object.'] } };
  }
  // Plain objects and for-in instead of Map/Object.entries: this runs before every signed request.
  const input: Record<string, unknown> = {};
  let usedName: Record<string, string> | undefined; // canonical -> spelling the caller used, when it differs
  let fieldErrors: Record<string, string[]> | undefined;
  const raw = params as Record<string, unknown>;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || ENVELOPE_FIELDS.has(key)) continue;
    const v = raw[key];
    if (v === undefined) continue;
    const alias = Object.hasOwn(CAMEL_TO_SNAKE, key) ? CAMEL_TO_SNAKE[key] : undefined;
    const canonical = alias ?? key;
    if (Object.hasOwn(input, canonical)) {
      (fieldErrors ??= {})[key] = [`The ${canonical} field may be given in one spelling only.`];
      continue;
    }
    input[canonical] = v;
    if (alias !== undefined) (usedName ??= {})[canonical] = key;
  }
  const parsed = schema.safeParse(input);
  if (parsed.success && fieldErrors === undefined) return { ok: true, value: parsed.data };
  fieldErrors ??= {};
  for (const issue of parsed.error?.issues ?? []) {
    const head = issue.path[0];
    const canonical = typeof head === 'string' ? head : 'request';
    const name = usedName?.[canonical] ?? canonical;
    (fieldErrors[name] ??= []).push(issue.message);
  }
  return { ok: false, fieldErrors };
}

/**
 * The exchange documentation's spelling of the canonical fields, for `requestFieldStyle: 'camel'`.
 * The documentation writes ids in camelCase (`clientOrderId`, `orderId`) but keeps `activation_price`
 * and `stop_limit_price` in snake_case on the endpoints tradebot calls (stop_limit, collateral OCO).
 */
export const DOCS_SPELLING: Readonly<Partial<Record<AliasedField, string>>> = {
  client_order_id: 'clientOrderId',
  order_id: 'orderId',
};

/** Renames canonical fields to the documentation's spelling (see DOCS_SPELLING). */
export function toDocsSpelling(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[DOCS_SPELLING[key as AliasedField] ?? key] = v;
  return out;
}

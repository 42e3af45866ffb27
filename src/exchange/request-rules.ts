import { z } from 'zod';
import type { WireEndpointId } from './http/endpoints';
import {
  BALANCE_ACCOUNT, BBO_ROLE, BOOLEAN, CLIENT_ORDER_ID, HISTORY_STATUS, INTERVAL, KILL_SWITCH_TIMEOUT, KILL_SWITCH_TYPE_LIST, MARKET,
  NAME_255, POSITION_SIDE, POSITIVE_DECIMAL, POSITIVE_ID, SIDE, STP, TICKER, TRANSFER_METHOD, UNIX_SECONDS, intRange, type FieldRule,
} from './http/request-fields';

/**
 * The API's request rules: ONE table, one entry per endpoint, in canonical field names (the
 * domain's camelCase: `clientOrderId`, `orderId`, `activationPrice`, ...). A wire dialect
 * (src/exchange/wire/) says how each canonical field is spelled on the wire; the rules never do.
 *
 * From the table comes one zod schema per endpoint (checkRequest), with the exchange's messages.
 * The client checks every request before it touches the network; the simulated exchange checks every
 * incoming body (after turning its wire names into canonical ones) to answer code 30 `Validation
 * failed` with the same field messages.
 *
 * A field listed here is known to the API on that endpoint in at least one dialect; which dialect
 * sends which field is the dialect's business.
 */
export interface FieldSpec {
  readonly rule: FieldRule;
  readonly required: boolean;
}

/** A rule across fields, turned into a zod refinement. */
export type CrossRule =
  | { readonly kind: 'exactlyOne'; readonly fields: readonly [string, string]; readonly missing: string; readonly both: string }
  | { readonly kind: 'notAfter'; readonly first: string; readonly second: string; readonly message: string }
  /** Either `one`, or both fields of `pair` (main-account/transfer: `method`, or `from` and `to`). */
  | { readonly kind: 'oneOrPair'; readonly one: string; readonly pair: readonly [string, string] };

export interface EndpointRules {
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly cross: readonly CrossRule[];
}

const req = (rule: FieldRule): FieldSpec => ({ rule, required: true });
const opt = (rule: FieldRule): FieldSpec => ({ rule, required: false });
const rules = (fields: Readonly<Record<string, FieldSpec>>, cross: readonly CrossRule[] = []): EndpointRules => ({ fields, cross });

const LIMIT_100 = intRange(1, 100);
const LIMIT_500 = intRange(1, 500);
/** Documented maximum of the list offsets (orders, oco-orders). */
const OFFSET = intRange(0, 4_294_967_295);

const exactlyOneId: CrossRule = {
  kind: 'exactlyOne', fields: ['orderId', 'clientOrderId'],
  missing: 'The order id field is required when client order id is not present.',
  both: 'Only one of order id and client order id may be given.',
};
const dateRange: CrossRule = { kind: 'notAfter', first: 'startDate', second: 'endDate', message: 'End date field must be greater then start date.' };

// Rules the spec gives (kline, codes, mining, stop_limit) and the venue's documentation (the rest).
export const REQUEST_RULES: Readonly<Record<WireEndpointId, EndpointRules>> = {
  kline: rules(
    { market: req(MARKET), start: opt(UNIX_SECONDS), end: opt(UNIX_SECONDS), interval: opt(INTERVAL), limit: opt(intRange(1, 1440)) },
    // The spec allows start == end ("must not be greater than end").
    [{ kind: 'notAfter', first: 'start', second: 'end', message: 'End field must be greater then start.' }],
  ),
  ping: rules({}),
  time: rules({}),
  markets: rules({}),
  assets: rules({}),
  tickers: rules({}),
  tickerV1: rules({ market: req(MARKET) }),

  tradeBalance: rules({ ticker: opt(TICKER) }),
  mainBalance: rules({ ticker: opt(TICKER) }),
  collateralBalance: rules({ ticker: opt(TICKER) }),
  collateralBalanceSummary: rules({ ticker: opt(TICKER) }),
  codes: rules({ limit: opt(LIMIT_100), offset: opt(intRange(0, 10_000)) }),
  miningAccounts: rules({ name: opt(NAME_255) }),
  jwt: rules({}),
  websocketToken: rules({}),

  activeOrders: rules({ market: opt(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID), limit: opt(LIMIT_100), offset: opt(OFFSET) }),
  ocoList: rules({ market: opt(MARKET), limit: opt(LIMIT_100), offset: opt(OFFSET) }),
  orderHistory: rules({
    market: opt(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID), status: opt(HISTORY_STATUS),
    startDate: opt(UNIX_SECONDS), endDate: opt(UNIX_SECONDS), limit: opt(LIMIT_500), offset: opt(OFFSET),
  }, [dateRange]),
  executedDeals: rules({
    market: opt(MARKET), clientOrderId: opt(CLIENT_ORDER_ID), startDate: opt(UNIX_SECONDS), endDate: opt(UNIX_SECONDS),
    limit: opt(LIMIT_500), offset: opt(OFFSET),
  }, [dateRange]),
  killSwitchStatus: rules({ market: opt(MARKET) }),

  stopLimit: rules({
    market: req(MARKET), side: req(SIDE), amount: req(POSITIVE_DECIMAL), price: req(POSITIVE_DECIMAL),
    activationPrice: req(POSITIVE_DECIMAL), clientOrderId: opt(CLIENT_ORDER_ID), bboRole: opt(BBO_ROLE), stp: opt(STP),
  }),
  collateralOco: rules({
    market: req(MARKET), side: req(SIDE), amount: req(POSITIVE_DECIMAL), price: req(POSITIVE_DECIMAL),
    activationPrice: req(POSITIVE_DECIMAL), stopLimitPrice: req(POSITIVE_DECIMAL), clientOrderId: opt(CLIENT_ORDER_ID),
    reduceOnly: opt(BOOLEAN), positionSide: opt(POSITION_SIDE), stp: opt(STP),
  }),
  cancelOrder: rules({ market: req(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID) }, [exactlyOneId]),
  cancelOco: rules({ market: req(MARKET), orderId: opt(POSITIVE_ID), clientOrderId: opt(CLIENT_ORDER_ID) }, [exactlyOneId]),
  // `timeout` must be present (null deletes the timer): its rule reports the missing key itself.
  killSwitch: rules({ market: req(MARKET), timeout: req(KILL_SWITCH_TIMEOUT), types: opt(KILL_SWITCH_TYPE_LIST) }),
  // The documentation recommends `from` and `to`; `method` is the older, deprecated form.
  transfer: rules(
    { ticker: req(TICKER), amount: req(POSITIVE_DECIMAL), from: opt(BALANCE_ACCOUNT), to: opt(BALANCE_ACCOUNT), method: opt(TRANSFER_METHOD) },
    [{ kind: 'oneOrPair', one: 'method', pair: ['from', 'to'] }],
  ),
  limitOrder: rules({
    market: req(MARKET), side: req(SIDE), amount: req(POSITIVE_DECIMAL), price: req(POSITIVE_DECIMAL),
    clientOrderId: opt(CLIENT_ORDER_ID), postOnly: opt(BOOLEAN), ioc: opt(BOOLEAN),
  }),
};

export type FieldErrors = Record<string, string[]>;

export type CheckResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly fieldErrors: FieldErrors };

function schemaOf(entry: EndpointRules): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(entry.fields)) {
    const schema = spec.rule.schema(name);
    shape[name] = spec.required ? schema : schema.optional();
  }
  const object = z.object(shape);
  if (entry.cross.length === 0) return object as z.ZodType<Record<string, unknown>>;
  return object.superRefine((value: Record<string, unknown>, ctx) => {
    for (const rule of entry.cross) {
      if (rule.kind === 'exactlyOne') {
        const [a, b] = rule.fields;
        if (value[a] === undefined && value[b] === undefined) ctx.addIssue({ code: 'custom', path: [a], message: rule.missing });
        else if (value[a] !== undefined && value[b] !== undefined) ctx.addIssue({ code: 'custom', path: [a], message: rule.both });
      } else if (rule.kind === 'oneOrPair') {
        const [a, b] = rule.pair;
        const pairGiven = value[a] !== undefined || value[b] !== undefined;
        if (value[rule.one] === undefined && !pairGiven) ctx.addIssue({ code: 'custom', path: [rule.one], message: `The ${rule.one} field is required.` });
        else if (value[rule.one] !== undefined && pairGiven) ctx.addIssue({ code: 'custom', path: [rule.one], message: `Give either ${rule.one} or ${a} and ${b}, not both.` });
        else if (pairGiven && value[a] === undefined) ctx.addIssue({ code: 'custom', path: [a], message: `The ${a} field is required when ${b} is present.` });
        else if (pairGiven && value[b] === undefined) ctx.addIssue({ code: 'custom', path: [b], message: `The ${b} field is required when ${a} is present.` });
        else if (pairGiven && value[a] === value[b]) ctx.addIssue({ code: 'custom', path: [b], message: `The ${b} and ${a} must be different.` });
      } else {
        const first = value[rule.first];
        const second = value[rule.second];
        if (typeof first === 'number' && typeof second === 'number' && first > second) {
          ctx.addIssue({ code: 'custom', path: [rule.second], message: rule.message });
        }
      }
    }
  }) as z.ZodType<Record<string, unknown>>;
}

const SCHEMAS = Object.fromEntries(
  Object.entries(REQUEST_RULES).map(([endpoint, entry]) => [endpoint, schemaOf(entry)]),
) as Readonly<Record<WireEndpointId, z.ZodType<Record<string, unknown>>>>;

/**
 * Checks the canonical parameters of one request to `endpoint` through the zod schema. A field the
 * endpoint does not have is an error, never dropped silently. On success `value` holds the
 * normalised parameters (amounts and prices as plain decimal strings, integers as numbers) in the
 * table's field order, which fixes the signed body's bytes.
 */
export function checkRequest(endpoint: WireEndpointId, params: unknown): CheckResult {
  if (params === undefined || params === null) params = {};
  if (typeof params !== 'object' || Array.isArray(params)) {
    return { ok: false, fieldErrors: { request: ['The request parameters should be an object.'] } };
  }
  const fields = REQUEST_RULES[endpoint].fields;
  const input: Record<string, unknown> = {};
  let fieldErrors: FieldErrors | undefined;
  const raw = params as Record<string, unknown>;
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || raw[key] === undefined) continue;
    if (!Object.hasOwn(fields, key)) {
      (fieldErrors ??= {})[key] = [`The ${key} field is not a parameter of this endpoint.`];
      continue;
    }
    input[key] = raw[key];
  }
  const parsed = SCHEMAS[endpoint].safeParse(input);
  if (parsed.success && fieldErrors === undefined) return { ok: true, value: parsed.data };
  fieldErrors ??= {};
  for (const issue of parsed.error?.issues ?? []) {
    const head = issue.path[0];
    (fieldErrors[typeof head === 'string' ? head : 'request'] ??= []).push(issue.message);
  }
  return { ok: false, fieldErrors };
}

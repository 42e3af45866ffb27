import { z } from 'zod';
import { WIRE_ENDPOINTS, type Endpoint, type WireEndpointId } from './endpoints';

/**
 * The request rules of the endpoint table (endpoints.ts), checked through one zod schema per endpoint
 * with the exchange's messages. The client checks every request before it touches the network; the
 * simulated exchange checks every incoming body (after turning its wire names into canonical ones) to
 * answer code 30 `Validation failed` with the same field messages. A schema is built on its first use.
 */
export type FieldErrors = Record<string, string[]>;

export type CheckResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly fieldErrors: FieldErrors };

function schemaOf(entry: Endpoint): z.ZodType<Record<string, unknown>> {
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

const SCHEMAS: Partial<Record<WireEndpointId, z.ZodType<Record<string, unknown>>>> = {};

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
  const fields = WIRE_ENDPOINTS[endpoint].fields;
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
  const parsed = (SCHEMAS[endpoint] ??= schemaOf(WIRE_ENDPOINTS[endpoint])).safeParse(input);
  if (parsed.success && fieldErrors === undefined) return { ok: true, value: parsed.data };
  fieldErrors ??= {};
  for (const issue of parsed.error?.issues ?? []) {
    const head = issue.path[0];
    (fieldErrors[typeof head === 'string' ? head : 'request'] ??= []).push(issue.message);
  }
  return { ok: false, fieldErrors };
}

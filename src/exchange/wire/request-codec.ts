import type { WireEndpointId } from './endpoints';
import { checkRequest, type CheckResult, type FieldErrors } from './request-rules';
import type { Dialect, EndpointWire } from './dialects';

/** Fields of the signed envelope; they belong to signing, not to an endpoint's parameters. */
export const ENVELOPE_FIELDS: ReadonlySet<string> = new Set(['request', 'nonce', 'nonceWindow']);

/** What the simulated exchange does with a body field its dialect does not know. */
export type UnknownFieldPolicy = 'refuse' | 'ignore';

/**
 * A dialect's request side, at the edge, once:
 * - `encode` (client): canonical parameters -> checked, normalised wire parameters;
 * - `decode` (simulated exchange): a wire body -> canonical parameters, with every problem named by
 *   its wire field.
 * Both check the same rules (request-rules.ts).
 */
export class RequestCodec {
  private readonly inverse: Partial<Record<WireEndpointId, Readonly<Record<string, string>>>> = {};

  constructor(readonly dialect: Dialect) {
    for (const [endpoint, { request }] of Object.entries(dialect.endpoints) as [WireEndpointId, EndpointWire][]) {
      this.inverse[endpoint] = Object.fromEntries(Object.entries(request).map(([canonical, wire]) => [wire, canonical]));
    }
  }

  /** The wire spelling of a canonical field on an endpoint (the canonical name when the dialect has none). */
  wireName(endpoint: WireEndpointId, field: string): string {
    return this.dialect.endpoints[endpoint].request[field] ?? field;
  }

  /** The canonical field behind a wire name on an endpoint, if the dialect has it. */
  canonicalName(endpoint: WireEndpointId, wire: string): string | undefined {
    const inverse = this.inverse[endpoint] as Readonly<Record<string, string>>;
    return Object.hasOwn(inverse, wire) ? inverse[wire] : undefined;
  }

  /** Client side. On failure the field errors are keyed by wire name (what the exchange would say). */
  encode(endpoint: WireEndpointId, params: Readonly<Record<string, unknown>>): CheckResult {
    const checked = checkRequest(endpoint, params);
    const names = this.dialect.endpoints[endpoint].request;
    if (!checked.ok) return { ok: false, fieldErrors: this.toWireErrors(endpoint, checked.fieldErrors) };
    const wire: Record<string, unknown> = {};
    let errors: FieldErrors | undefined;
    for (const [field, value] of Object.entries(checked.value)) {
      const name = names[field];
      if (name === undefined) (errors ??= {})[field] = [`The ${this.dialect.name} dialect does not send ${field} to this endpoint.`];
      else wire[name] = value;
    }
    return errors === undefined ? { ok: true, value: wire } : { ok: false, fieldErrors: errors };
  }

  /**
   * Simulator side: the body of a signed request (envelope fields skipped) in canonical names. A field
   * the dialect does not know on this endpoint is refused (`refuse`, the default: code 30 naming it)
   * or dropped (`ignore`: what the live venue does, which silently ignores unknown fields).
   */
  decode(endpoint: WireEndpointId, body: Readonly<Record<string, unknown>>, unknownFields: UnknownFieldPolicy = 'refuse'): CheckResult {
    const inverse = this.inverse[endpoint] as Readonly<Record<string, string>>;
    const canonical: Record<string, unknown> = {};
    let errors: FieldErrors | undefined;
    for (const key in body) {
      if (!Object.hasOwn(body, key) || ENVELOPE_FIELDS.has(key)) continue;
      const field = Object.hasOwn(inverse, key) ? inverse[key] : undefined;
      if (field === undefined) {
        if (unknownFields === 'refuse') (errors ??= {})[key] = [this.unknownFieldMessage(endpoint, key)];
        continue;
      }
      canonical[field] = body[key];
    }
    const checked = checkRequest(endpoint, canonical);
    if (checked.ok) return errors === undefined ? checked : { ok: false, fieldErrors: errors };
    return { ok: false, fieldErrors: { ...errors, ...this.toWireErrors(endpoint, checked.fieldErrors) } };
  }

  private unknownFieldMessage(endpoint: WireEndpointId, key: string): string {
    const known = Object.values(this.dialect.endpoints[endpoint].request);
    const list = known.length === 0 ? 'none' : known.join(', ');
    return `The ${key} field is unknown to ${this.dialect.endpoints[endpoint].path} in the ${this.dialect.name} dialect (its fields: ${list}).`;
  }

  private toWireErrors(endpoint: WireEndpointId, errors: FieldErrors): FieldErrors {
    const out: FieldErrors = {};
    for (const [field, messages] of Object.entries(errors)) (out[this.wireName(endpoint, field)] ??= []).push(...messages);
    return out;
  }
}

const CODECS = new Map<string, RequestCodec>();

/** The codec of a dialect (built once). */
export function requestCodec(dialect: Dialect): RequestCodec {
  let codec = CODECS.get(dialect.name);
  if (codec === undefined) {
    codec = new RequestCodec(dialect);
    CODECS.set(dialect.name, codec);
  }
  return codec;
}

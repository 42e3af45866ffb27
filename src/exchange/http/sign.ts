import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Request signing, exactly as the spec says:
 *   body    = JSON with `request` (the endpoint path) and `nonce`, optional `nonceWindow`, then the params
 *   payload = base64 of the exact body bytes sent
 *   sig     = lowercase hex HMAC-SHA512(key = api secret, message = payload)
 * The simulated exchange verifies with the same functions, so the two can never drift apart.
 */
export interface SignedRequest {
  /** The exact bytes to send as the HTTP body. */
  readonly body: string;
  readonly headers: {
    readonly 'Content-Type': 'application/json';
    readonly 'X-TXC-APIKEY': string;
    readonly 'X-TXC-PAYLOAD': string;
    readonly 'X-TXC-SIGNATURE': string;
  };
}

export function buildSignedBody(
  path: string,
  nonce: number | string,
  params: Readonly<Record<string, unknown>>,
  nonceWindow: boolean | undefined,
): string {
  const rest = paramsJson(params);
  if (rest !== undefined) {
    // Same bytes as the general form below, without a merged object or JSON.stringify (the signing
    // hot path: this runs before every signed request).
    const nonceJson = typeof nonce === 'number' && Number.isSafeInteger(nonce) ? `"${nonce}"` : JSON.stringify(String(nonce));
    const head = `{"request":${JSON.stringify(path)},"nonce":${nonceJson}${nonceWindow === undefined ? '' : `,"nonceWindow":${nonceWindow}`}`;
    return rest === '' ? `${head}}` : `${head},${rest}}`;
  }
  const envelope: Record<string, unknown> = { request: path, nonce: String(nonce) };
  if (nonceWindow !== undefined) envelope['nonceWindow'] = nonceWindow;
  return JSON.stringify({ ...envelope, ...params });
}

/**
 * The members of JSON.stringify(params) without the braces, written by hand, or undefined when that
 * is not simply byte-identical: a param would override an envelope key or is integer-like (which
 * JavaScript orders before the envelope's keys), the object is not plain, or a value is anything but
 * a string that needs no escaping, a finite number, a boolean, null or undefined (which JSON omits).
 * Request params are flat and mostly validated ASCII, so the general JSON.stringify is rarely needed.
 */
function paramsJson(params: Readonly<Record<string, unknown>>): string | undefined {
  if (Object.getPrototypeOf(params) !== Object.prototype) return undefined;
  let out = '';
  for (const key in params) {
    if (!Object.hasOwn(params, key)) return undefined;
    if (key === 'request' || key === 'nonce' || key === 'nonceWindow') return undefined;
    const c = key.charCodeAt(0);
    if ((c >= 48 && c <= 57) || needsEscape(key)) return undefined;
    const v = params[key];
    let json: string;
    if (typeof v === 'string') {
      if (needsEscape(v)) return undefined;
      json = `"${v}"`;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return undefined;
      json = String(v); // same digits as JSON (-0 included: both give "0")
    } else if (typeof v === 'boolean') json = v ? 'true' : 'false';
    else if (v === null) json = 'null';
    else if (v === undefined) continue;
    else return undefined; // objects (toJSON, arrays), functions, symbols, bigint: JSON.stringify decides
    out = out === '' ? `"${key}":${json}` : `${out},"${key}":${json}`;
  }
  return out;
}

/** True when JSON.stringify would not copy `s` verbatim between quotes (escapes, lone surrogates). */
function needsEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Control characters, '"', '\'; any surrogate (paired ones are verbatim, but they are rare here).
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/** Reused for the base64 step (sync, so never used by two callers at once). */
const scratch = Buffer.allocUnsafe(8192);

/** base64 of the UTF-8 bytes of `body`, without allocating a Buffer per request. */
function base64Utf8(body: string): string {
  // At most 3 UTF-8 bytes per UTF-16 unit, so a body that passes this test is never cut off.
  if (body.length * 3 > scratch.length) return Buffer.from(body, 'utf8').toString('base64');
  const written = scratch.write(body, 0, 'utf8');
  return scratch.toString('base64', 0, written);
}

export function signPayload(payloadBase64: string, apiSecret: string): string {
  return createHmac('sha512', apiSecret).update(payloadBase64).digest('hex');
}

export function signRequest(
  credentials: { readonly apiKey: string; readonly apiSecret: string },
  path: string,
  nonce: number | string,
  params: Readonly<Record<string, unknown>>,
  nonceWindow?: boolean,
): SignedRequest {
  const body = buildSignedBody(path, nonce, params, nonceWindow);
  const payload = base64Utf8(body);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-TXC-APIKEY': credentials.apiKey,
      'X-TXC-PAYLOAD': payload,
      'X-TXC-SIGNATURE': signPayload(payload, credentials.apiSecret),
    },
  };
}

/** Constant-time check of a received signature against the payload (used by the simulated exchange). */
export function verifySignature(payloadBase64: string, signatureHex: string, apiSecret: string): boolean {
  const expected = Buffer.from(signPayload(payloadBase64, apiSecret), 'hex');
  const given = Buffer.from(signatureHex, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

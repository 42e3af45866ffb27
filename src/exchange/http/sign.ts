import { createHmac, timingSafeEqual } from 'node:crypto';
import { asciiBuffer, writeAsciiBody } from './ascii-body';

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
  const n = writeAsciiBody(path, nonce, params, nonceWindow);
  return n >= 0 ? asciiBuffer.toString('latin1', 0, n) : jsonBody(path, nonce, params, nonceWindow);
}

/** The general form: JSON.stringify of the envelope followed by the params. */
function jsonBody(path: string, nonce: number | string, params: Readonly<Record<string, unknown>>, nonceWindow: boolean | undefined): string {
  if (canConcatenate(params)) {
    // Same bytes as the merged object below, without building it.
    const head = `{"request":${JSON.stringify(path)},"nonce":${JSON.stringify(String(nonce))}${nonceWindow === undefined ? '' : `,"nonceWindow":${nonceWindow}`}`;
    const rest = JSON.stringify(params);
    return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
  }
  const envelope: Record<string, unknown> = { request: path, nonce: String(nonce) };
  if (nonceWindow !== undefined) envelope['nonceWindow'] = nonceWindow;
  return JSON.stringify({ ...envelope, ...params });
}

/**
 * Concatenation gives the same bytes as the merged object unless a param would override an
 * envelope key or be an integer-like key (which JavaScript orders before the envelope's keys).
 */
function canConcatenate(params: Readonly<Record<string, unknown>>): boolean {
  if (Object.getPrototypeOf(params) !== Object.prototype) return false;
  for (const key in params) {
    if (key === 'request' || key === 'nonce' || key === 'nonceWindow') return false;
    const c = key.charCodeAt(0);
    if (c >= 48 && c <= 57) return false;
  }
  return true;
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
  // Hot path: body and payload each copied once out of the bytes written for them.
  const n = writeAsciiBody(path, nonce, params, nonceWindow);
  const body = n >= 0 ? asciiBuffer.toString('latin1', 0, n) : jsonBody(path, nonce, params, nonceWindow);
  const payload = n >= 0 ? asciiBuffer.toString('base64', 0, n) : Buffer.from(body, 'utf8').toString('base64');
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

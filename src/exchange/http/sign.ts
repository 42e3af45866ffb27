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

/**
 * `{"request":<path>,"nonce":"<nonce>"[,"nonceWindow":b],...params}`: the envelope first, as the spec
 * asks, then the params in the order the request codec wrote them.
 */
export function buildSignedBody(
  path: string,
  nonce: number | string,
  params: Readonly<Record<string, unknown>>,
  nonceWindow: boolean | undefined,
): string {
  const envelope: Record<string, unknown> = { request: path, nonce: String(nonce) };
  if (nonceWindow !== undefined) envelope['nonceWindow'] = nonceWindow;
  return JSON.stringify({ ...envelope, ...params });
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
  // The payload is the base64 of exactly the bytes sent, so the signature covers the body.
  const payload = Buffer.from(body, 'utf8').toString('base64');
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

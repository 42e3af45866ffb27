import type { IncomingHttpHeaders } from 'node:http';
import { verifySignature } from '../../exchange/http/sign';
import type { NonceGuard } from './nonce-guard';

/**
 * Checks a private request exactly as the spec and the exchange do (exchange-api-extra §2):
 * headers present, X-TXC-PAYLOAD equal to base64 of the raw body, X-TXC-SIGNATURE = hex
 * HMAC-SHA512(payload, secret) of a known key, then the body's `request`, `nonce` and `nonceWindow`.
 * Failures carry the exchange's messages; HTTP statuses follow its generic table (401 auth, 400 bad
 * request, 429 nonce). Secrets and signatures never appear in an answer.
 */
export type AuthOutcome =
  | { readonly ok: true; readonly apiKey: string; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly status: number; readonly body: Record<string, unknown> };

const fail = (status: number, code: number, message: string): AuthOutcome => ({ ok: false, status, body: { code, message, errors: {} } });

export const UNAUTHORIZED = (): AuthOutcome => fail(401, 10, 'Unauthorized request.');
export const TOO_MANY_REQUESTS = { code: 0, errors: {}, message: 'Too many requests.' } as const;
/**
 * A nonceWindow nonce more than 5 s from the server clock, as the venue answers it (body seen by
 * whitebit-exchange/api-quickstart#14). Its HTTP status is not documented: 429, like the venue's other
 * nonce refusal.
 */
export const NONCE_OUTSIDE_WINDOW = { code: 0, message: 'Your nonce is more than 5 seconds lesser than the current nonce.' } as const;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function authenticate(
  headers: IncomingHttpHeaders,
  rawBody: string,
  path: string,
  secrets: ReadonlyMap<string, string>,
  nonces: NonceGuard,
  nowMs: number,
): AuthOutcome {
  const apiKey = header(headers, 'x-txc-apikey');
  const payload = header(headers, 'x-txc-payload');
  const signature = header(headers, 'x-txc-signature');
  if (apiKey === undefined || apiKey === '') return UNAUTHORIZED();
  if (payload === undefined || payload === '') return fail(401, 9, 'Payload not provided.');
  if (signature === undefined || signature === '') return UNAUTHORIZED();
  const secret = secrets.get(apiKey);
  if (secret === undefined) return UNAUTHORIZED();
  if (payload !== Buffer.from(rawBody, 'utf8').toString('base64')) return fail(400, 9, 'Invalid payload.');
  if (!/^[0-9a-fA-F]+$/.test(signature) || !verifySignature(payload, signature.toLowerCase(), secret)) return UNAUTHORIZED();

  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return fail(400, 9, 'Invalid payload.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(400, 9, 'Invalid payload.');
  const fields = body as Record<string, unknown>;
  if (fields['request'] === undefined || fields['request'] === '') return fail(400, 0, 'Request not provided.');
  if (fields['request'] !== path) return UNAUTHORIZED();
  const nonce = parseNonce(fields['nonce']);
  if (fields['nonce'] === undefined || fields['nonce'] === '') return fail(400, 0, 'Nonce not provided.');
  if (nonce === undefined) return { ok: false, status: 429, body: { ...TOO_MANY_REQUESTS } };
  const nonceWindow = fields['nonceWindow'];
  if (nonceWindow !== undefined && typeof nonceWindow !== 'boolean') return fail(400, 0, 'Invalid nonceWindow.');
  const verdict = nonces.accept(apiKey, nonce, nonceWindow === true, nowMs);
  if (verdict === 'outside_window') return { ok: false, status: 429, body: { ...NONCE_OUTSIDE_WINDOW } };
  if (verdict !== 'ok') return { ok: false, status: 429, body: { ...TOO_MANY_REQUESTS } };
  return { ok: true, apiKey, body: fields };
}

/** The docs send an integer, ccxt a digit string: both are accepted. */
function parseNonce(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  }
  return undefined;
}

import {
  AuthenticationError, BadResponseError, DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeUnavailableError,
  ExchangeValidationError, InsufficientFundsError, OrderNotFoundError, RateLimitedError, RegionRefusedError, type TradebotError,
} from '../../domain/errors';
import type { EndpointId } from '../wire/endpoints';

/**
 * Venue answers -> typed errors, as a table (ccxt `exceptions.exact` / `exceptions.broad`).
 * Order of precedence, following the extra facts ("classify by code plus field message, never by
 * HTTP status alone"):
 *   1. HTTP 429 (rate limit, or on a private endpoint with code 0 a refused nonce)
 *   2. HTTP 453 (the region does not offer the order type): RegionRefusedError
 *   3. exact message match on the top message and every field message
 *   4. broad substring match
 *   5. HTTP 401/403: auth, whatever the code (a 401 body's code 0 is not a validation error)
 *   6. the private `code` table
 *   7. HTTP status (5xx unavailable)
 *   8. anything else the venue refused: ExchangeRejectedError
 * What each resulting error class means for retries is error-policy.ts.
 * Errors carry endpoint, path, HTTP status, venue code and field messages; never request headers,
 * the payload or the signature.
 */

type Kind = 'auth' | 'funds' | 'notFound' | 'duplicate' | 'unavailable' | 'validation' | 'nonce' | 'rejected';

export const EXACT: Readonly<Record<string, Kind>> = {
  'Unauthorized request.': 'auth',
  'Invalid payload.': 'auth',
  'Invalid payload': 'auth',
  'Payload not provided.': 'auth',
  'Request not provided.': 'auth',
  'This action is unauthorized.': 'auth',
  'This API Key is not authorized to perform this action.': 'auth',
  "You don't have permission to use this endpoint.": 'auth',
  'Nonce not provided.': 'auth',
  'Invalid nonceWindow.': 'auth',
  'Not enough balance.': 'funds',
  'Not enough balance': 'funds',
  'Unexecuted order was not found.': 'notFound',
  'This client order id is already used by the current account.': 'duplicate',
  'Please try again later.': 'unavailable',
};

/** Checked in order; the first substring found wins. */
export const BROAD: readonly (readonly [string, Kind])[] = [
  ['This action is unauthorized', 'auth'],
  ['Enable your key in API settings', 'auth'],
  ['is not authorized to perform', 'auth'],
  ["don't have permission", 'auth'],
  // "Your nonce is more than 5 seconds lesser than the current nonce": outside the nonceWindow.
  ['nonce is more than', 'nonce'],
  ['Not enough balance', 'funds'],
  ["You don't have such amount", 'funds'],
  ['client order id is already used', 'duplicate'],
  ['try again later', 'unavailable'],
];

/** Private `code` values (extra facts §3.3) when no message decided. */
export function kindOfCode(code: number): Kind | undefined {
  if (code === 0 || (code >= 30 && code <= 43) || (code >= 111 && code <= 116)) return 'validation';
  if (code === 2) return 'notFound';
  if (code === 10) return 'funds';
  // OCO (extra facts §3.3): 150 limit leg cannot be placed, 151 wrong stop-loss activation price;
  // 152 / 153 not enough balance for the stop-limit / the limit leg.
  if (code === 150 || code === 151) return 'validation';
  if (code === 152 || code === 153) return 'funds';
  if (code === 15 || code === 16) return 'unavailable';
  return undefined;
}

export interface VenueAnswer {
  readonly endpoint: EndpointId | string;
  readonly path: string;
  readonly isPrivate: boolean;
  readonly status: number;
  /** Parsed JSON body, or undefined when the body was empty or not JSON. */
  readonly body: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fieldErrorsOf(v: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!isRecord(v)) return out;
  for (const [k, msgs] of Object.entries(v)) {
    if (Array.isArray(msgs)) out[k] = msgs.filter((m): m is string => typeof m === 'string');
    else if (typeof msgs === 'string') out[k] = [msgs];
  }
  return out;
}

/** True when a 2xx body is one of the venue's error shapes rather than a result. */
export function isErrorShape(answer: VenueAnswer): boolean {
  const b = answer.body;
  if (!isRecord(b)) return false;
  if (answer.isPrivate) return typeof b['code'] === 'number' && typeof b['message'] === 'string' && 'errors' in b;
  return b['success'] === false;
}

/** The typed error for a non-success answer (status >= 400 or an error-shaped body). */
export function classifyAnswer(answer: VenueAnswer): TradebotError {
  const { status, body } = answer;
  const rec = isRecord(body) ? body : {};
  const code = typeof rec['code'] === 'number' ? rec['code'] : undefined;
  let message = typeof rec['message'] === 'string' ? rec['message'] : undefined;
  let fieldErrors = fieldErrorsOf(rec['errors']);
  if (!answer.isPrivate) {
    // Kline: {"success":false,"message":{field:[...]}|string,"result":null}; v4 public 422: {"market":[...]}.
    if (isRecord(rec['message'])) fieldErrors = fieldErrorsOf(rec['message']);
    else if (rec['success'] === undefined && status === 422) fieldErrors = fieldErrorsOf(rec);
  }
  const ctx = { endpoint: answer.endpoint, path: answer.path };
  const fieldMessages = Object.values(fieldErrors).flat();
  const summary = message ?? fieldMessages[0] ?? `HTTP ${status}`;
  // "Validation failed" alone does not say what to fix: the message names every field and its complaint.
  const fields = Object.entries(fieldErrors).filter(([, m]) => m.length > 0);
  const detail = fields.length === 0 || (message === undefined && fields.length === 1)
    ? '' : ` (${fields.map(([f, m]) => `${f}: ${m.join(' ')}`).join('; ')})`;
  message = `${answer.endpoint}: ${summary}${detail}`;

  if (status === 429) {
    // The simulator (and maybe the venue) answers a nonce outside the window with 429 too.
    const nonce = answer.isPrivate && ((code === 0 && summary === 'Too many requests.') || summary.includes('nonce is more than'));
    return new RateLimitedError(message, { ...ctx, httpStatus: status, venueCode: code, nonce });
  }

  if (status === 453) return new RegionRefusedError(message, code, fieldErrors, status, ctx);

  const candidates = [summary, ...fieldMessages];
  let kind: Kind | undefined;
  for (const m of candidates) if ((kind = EXACT[m]) !== undefined) break;
  if (kind === undefined) kind = BROAD.find(([needle]) => candidates.some((m) => m.includes(needle)))?.[1];
  if (kind === undefined && (status === 401 || status === 403)) kind = 'auth';
  if (kind === undefined && code !== undefined) kind = kindOfCode(code);
  if (kind === undefined) {
    if (status >= 500) kind = 'unavailable';
    else if (!answer.isPrivate && (status === 422 || rec['success'] === false)) kind = 'validation';
    else kind = 'rejected';
  }
  const httpStatus = status;
  switch (kind) {
    case 'auth':
      return new AuthenticationError(message, code, fieldErrors, httpStatus, ctx);
    case 'funds':
      return new InsufficientFundsError(message, code, fieldErrors, httpStatus, ctx);
    case 'notFound':
      return new OrderNotFoundError(message, code, fieldErrors, httpStatus, ctx);
    case 'duplicate':
      return new DuplicateClientOrderIdError(message, code, fieldErrors, httpStatus, ctx);
    case 'validation':
      return new ExchangeValidationError(message, code, fieldErrors, httpStatus, ctx);
    case 'nonce':
      return new RateLimitedError(message, { ...ctx, httpStatus, venueCode: code, nonce: true });
    case 'unavailable':
      return new ExchangeUnavailableError(message, { ...ctx, httpStatus, venueCode: code, fieldErrors });
    case 'rejected':
      return new ExchangeRejectedError(message, code, fieldErrors, httpStatus, ctx);
  }
}

/** A body that is not JSON or does not have the endpoint's shape. Only a short excerpt is kept. */
export function badResponse(endpoint: EndpointId | string, path: string, status: number, reason: string, text?: string): BadResponseError {
  const excerpt = text === undefined ? undefined : text.slice(0, 200);
  return new BadResponseError(`${endpoint}: bad response (${reason})`, {
    endpoint, path, httpStatus: status, reason, ...(excerpt === undefined ? {} : { bodyExcerpt: excerpt }),
  });
}

import {
  AuthenticationError, BadResponseError, DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeUnavailableError,
  ExchangeValidationError, InsufficientFundsError, OrderNotFoundError, RateLimitedError, RedirectRefusedError, RegionRefusedError,
  RequestTimeoutError, RequestValidationError, ResponseTooLargeError,
} from '../../domain/errors';

/**
 * The second half of the one error table: error class -> retry policy. The first half, HTTP status x
 * venue code x message -> typed error, is errors.ts (classifyAnswer); the transport adds the errors of
 * the wire itself (timeout, connection, redirect, size, garbage). README "Errors" lists both halves.
 *
 * Policies, for reads (idempotent endpoints; writes are sent once, see RequestRunner):
 * - never:       the same request would fail the same way, or retrying could do harm.
 * - backoff:     retry after exponential backoff with full jitter, same region.
 * - failover:    retry at once in the other region when there is one, else after backoff.
 * - resyncClock: measure the server's clock again first, then retry with a fresh nonce. A refused
 *                nonce proves the request was not executed, so even a write gets that one retry.
 */
export type ErrorClass =
  | 'auth' | 'nonce' | 'rateLimit' | 'validation' | 'notFound' | 'funds' | 'duplicate' | 'region' | 'rejected'
  | 'server' | 'network' | 'timeout' | 'badResponse' | 'redirect' | 'tooLarge' | 'local';

export type RetryRule = 'never' | 'backoff' | 'failover' | 'resyncClock';

export const RETRY_POLICY: Readonly<Record<ErrorClass, RetryRule>> = {
  auth: 'never', // a bad key or signature stays bad; retrying may get the key or IP banned
  nonce: 'resyncClock',
  rateLimit: 'backoff',
  validation: 'never', // the error names the field to fix
  notFound: 'never',
  funds: 'never',
  duplicate: 'never', // the order exists: look it up by its client order id
  region: 'never', // the region does not offer the order type
  rejected: 'never',
  server: 'failover', // 5xx, "try again later"
  network: 'failover', // connection refused/reset
  timeout: 'backoff',
  badResponse: 'backoff', // garbage once may be a proxy hiccup; the retry budget bounds it
  redirect: 'never', // the signed headers must never follow it
  tooLarge: 'never', // the next answer would be as large
  local: 'never', // refused before sending (request rules, config)
};

/** The class of a thrown error; undefined for errors that are not the exchange's (bugs, aborts). */
export function errorClassOf(err: unknown): ErrorClass | undefined {
  if (err instanceof RequestValidationError) return 'local';
  if (err instanceof ExchangeRejectedError) {
    if (err instanceof AuthenticationError) return 'auth';
    if (err instanceof RegionRefusedError) return 'region';
    if (err instanceof ExchangeValidationError) return 'validation';
    if (err instanceof OrderNotFoundError) return 'notFound';
    if (err instanceof InsufficientFundsError) return 'funds';
    if (err instanceof DuplicateClientOrderIdError) return 'duplicate';
    return 'rejected';
  }
  if (err instanceof ExchangeUnavailableError) {
    if (err instanceof RateLimitedError) return err.context['nonce'] === true ? 'nonce' : 'rateLimit';
    if (err instanceof RequestTimeoutError) return 'timeout';
    if (err instanceof BadResponseError) return 'badResponse';
    if (err instanceof RedirectRefusedError) return 'redirect';
    if (err instanceof ResponseTooLargeError) return 'tooLarge';
    return typeof err.context['httpStatus'] === 'number' ? 'server' : 'network';
  }
  return undefined;
}

export function retryRuleOf(err: unknown): RetryRule {
  const cls = errorClassOf(err);
  return cls === undefined ? 'never' : RETRY_POLICY[cls];
}

import {
  BadResponseError, ExchangeRejectedError, ExchangeUnavailableError, RateLimitedError, RequestTimeoutError,
} from '../domain/errors';
import type { EndpointId } from '../exchange/wire/endpoints';
import type { ExchangeOutcome } from './definitions';
import type { Metrics } from './registry';

/** A 429 that was a refused nonce, not a rate limit: the client marks it with `context.nonce`. */
function isNonceRejection(error: RateLimitedError): boolean {
  return Boolean(error.context['nonce']);
}

/**
 * The `outcome` label of tradebot_exchange_requests_total for a finished request: `ok` when it
 * resolved, otherwise the branch of the error tree it failed with. Subclasses are tested before
 * their parents (RateLimitedError is an ExchangeUnavailableError).
 */
export function exchangeOutcome(error?: unknown): ExchangeOutcome {
  if (error === undefined) return 'ok';
  if (error instanceof RateLimitedError) return isNonceRejection(error) ? 'nonce_rejected' : 'rate_limited';
  if (error instanceof RequestTimeoutError) return 'timeout';
  if (error instanceof BadResponseError) return 'bad_response';
  if (error instanceof ExchangeUnavailableError) return 'unavailable';
  if (error instanceof ExchangeRejectedError) return 'rejected';
  return 'error';
}

/**
 * Everything one finished exchange request records: the request counter, its latency, and the 429
 * or nonce counters. The HTTP client calls this once per attempt (a retry is another request).
 */
export function recordExchangeRequest(metrics: Metrics, endpoint: EndpointId, seconds: number, error?: unknown): ExchangeOutcome {
  const outcome = exchangeOutcome(error);
  const labels = { api_endpoint: endpoint };
  metrics.exchangeRequests.inc({ api_endpoint: endpoint, outcome });
  metrics.exchangeRequestDuration.observe(labels, seconds);
  if (outcome === 'rate_limited') metrics.rateLimited.inc(labels);
  if (outcome === 'nonce_rejected') metrics.nonceRejections.inc(labels);
  return outcome;
}

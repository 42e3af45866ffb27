import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { HttpExchangeClient, type ClientRequestEvent } from '../exchange/http/client';
import type { EndpointId } from '../exchange/wire/endpoints';
import type { NonceSource } from '../exchange/nonce/nonce-source';
import type { RateLimiter } from '../limiter/rate-limiter';
import type { Logger } from '../log/logger';
import type { ExchangeOutcome } from '../metrics/definitions';
import { recordExchangeRequest } from '../metrics/exchange-outcome';
import type { Metrics } from '../metrics/registry';
import { MeteredLimiter } from '../limiter/metered-limiter';

/**
 * Maps the error code of a failed attempt to the metric's outcome label: the fallback for an event
 * that carries no error object (a code cannot tell a refused nonce from a 429).
 */
export function outcomeOfCode(code: string): ExchangeOutcome {
  switch (code) {
    case 'ok': return 'ok';
    case 'TB_ERR_RATE_LIMITED': return 'rate_limited';
    case 'TB_ERR_TIMEOUT': return 'timeout';
    case 'TB_ERR_BAD_RESPONSE': return 'bad_response';
    case 'TB_ERR_EXCHANGE_UNAVAILABLE': return 'unavailable';
    case 'TB_ERR_EXCHANGE_REJECTED': case 'TB_ERR_EXCHANGE_VALIDATION': case 'TB_ERR_AUTH': case 'TB_ERR_INSUFFICIENT_FUNDS':
    case 'TB_ERR_ORDER_NOT_FOUND': case 'TB_ERR_DUPLICATE_CLIENT_ORDER_ID': case 'TB_ERR_REQUEST_INVALID':
      return 'rejected';
    default: return 'error';
  }
}

export interface ExchangeWiring {
  readonly baseUrl: string;
  readonly credentials: { readonly apiKey: string; readonly apiSecret: string };
  readonly nonces: NonceSource;
  readonly limiter: RateLimiter;
  /** Wall clock (request timing, nonces). */
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Re-measures the exchange's clock after a refused nonce (clock-guard.ts). */
  readonly resyncClock?: () => Promise<void>;
}

/** The HTTP client with every attempt observed (requests, latency, 429s) and the limiter's waits timed. */
export function createExchangeClient(config: FrozenConfig, w: ExchangeWiring): HttpExchangeClient {
  const ex = config.exchange;
  const limiter = new MeteredLimiter(w.limiter, (limit, seconds) => w.metrics.limiterWait.observe({ limit }, seconds));
  return new HttpExchangeClient({
    baseUrl: w.baseUrl,
    ...(ex.euBaseUrl === undefined || config.mode === 'paper' ? {} : { euBaseUrl: ex.euBaseUrl }),
    primaryRegion: config.mode === 'paper' ? 'global' : ex.primaryRegion,
    credentials: w.credentials,
    nonceSource: w.nonces,
    limiter,
    clock: w.clock,
    timeoutMs: ex.timeoutMs,
    maxResponseBytes: ex.maxResponseBytes,
    nonceWindow: ex.nonceWindow,
    dialect: ex.dialect,
    retry: ex.retry,
    onRequest: requestObserver(w.metrics, w.log),
    ...(w.resyncClock === undefined ? {} : { resyncClock: w.resyncClock }),
  });
}

/**
 * The client's per-attempt hook: request counter by outcome, latency, and the 429 and refused-nonce
 * counters. With the attempt's error object, recordExchangeRequest tells a refused nonce
 * (`nonce_rejected`, tradebot_exchange_nonce_rejections_total) from a rate limit; an event with only
 * an error code falls back to outcomeOfCode.
 */
export function requestObserver(metrics: Metrics, log: Pick<Logger, 'debug'>): (e: ClientRequestEvent) => void {
  return (e) => {
    const endpoint = e.endpoint as EndpointId;
    const seconds = e.durationMs / 1000;
    let outcome: ExchangeOutcome;
    if (e.outcome === 'ok' || e.error !== undefined) {
      outcome = recordExchangeRequest(metrics, endpoint, seconds, e.outcome === 'ok' ? undefined : e.error);
    } else {
      outcome = outcomeOfCode(e.outcome);
      metrics.exchangeRequests.inc({ api_endpoint: endpoint, outcome });
      metrics.exchangeRequestDuration.observe({ api_endpoint: endpoint }, seconds);
      if (outcome === 'rate_limited') metrics.rateLimited.inc({ api_endpoint: endpoint });
    }
    if (outcome !== 'ok') log.debug({ endpoint, outcome, code: e.outcome, attempt: e.attempt, region: e.region, durationMs: e.durationMs }, 'exchange request failed');
  };
}

import type { Clock } from '../../core/clock';
import { ConfigError, RequestValidationError, TradebotError } from '../../domain/errors';
import type { RateLimiter } from '../../limiter/rate-limiter';
import type { NonceSource } from '../nonce/nonce-source';
import { answerSchema, type ResponseOf } from '../wire/answers';
import type { Dialect } from '../wire/dialects';
import type { EndpointId } from '../wire/endpoints';
import { requestCodec, type RequestCodec } from '../wire/request-codec';
import { retryRuleOf } from './error-policy';
import { badResponse, classifyAnswer, isErrorShape } from './errors';
import { ForeignDialectAnswerError, readInOtherDialect } from './foreign-dialect';
import { signRequest } from './sign';
import { NOT_JSON, type Transport } from './transport';

export interface RetryPolicy {
  /** Total tries of a read (1 = no retry). Writes always get exactly one. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface RequestEvent {
  readonly endpoint: EndpointId;
  /** `ok`, or the error code (`TB_ERR_RATE_LIMITED`, ...) of this attempt. */
  readonly outcome: 'ok' | string;
  readonly durationMs: number;
  readonly attempt: number;
  readonly region: 'global' | 'eu';
  /** The error this attempt failed with (undefined when ok): tells a refused nonce from a rate limit. */
  readonly error?: unknown;
}

export interface RunnerOptions {
  readonly regions: readonly { readonly name: 'global' | 'eu'; readonly baseUrl: string }[];
  readonly credentials: { readonly apiKey: string; readonly apiSecret: string } | undefined;
  readonly nonceSource: NonceSource;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly transport: Transport;
  readonly nonceWindow: boolean;
  /** How paths and fields are spelled on the wire (applied here, once, both ways). */
  readonly dialect: Dialect;
  readonly retry: RetryPolicy;
  readonly onRequest: ((event: RequestEvent) => void) | undefined;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  /**
   * Measures the server's clock again (after a refused nonce, before the retry). Failures are the
   * hook's business: the retry goes ahead on whatever offset it left.
   */
  readonly resyncClock: (() => Promise<void>) | undefined;
}

/** A prepared request: what goes on the wire, minus the host. */
export interface PreparedRequest {
  readonly pathAndQuery: string;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly body: string | undefined;
}

/**
 * Runs one logical API call: check -> limiter -> sign (fresh nonce per attempt) -> send -> classify
 * -> parse. Retry rules (error-policy.ts decides per error class):
 * - Reads (`endpoint.idempotent`) retry transient failures (5xx, 429, timeouts, connection errors,
 *   unparseable answers) with exponential backoff and full jitter, and fail over to the other region
 *   on connection errors and 5xx. Auth, validation, redirects and oversized answers are never retried.
 * - A refused nonce re-measures the server's clock, then retries once (reads and writes alike: the
 *   refusal proves the request was not executed).
 * - Writes are sent at most once, to the primary region. A timeout or a dropped connection after an
 *   order was sent leaves its outcome unknown: the caller (the executor) settles it by looking the
 *   order up by its client_order_id, and never resends it under a new id. Re-sending here could
 *   place a second order.
 */
export class RequestRunner {
  private readonly codec: RequestCodec;

  constructor(private readonly o: RunnerOptions) {
    this.codec = requestCodec(o.dialect);
  }

  async call<E extends EndpointId>(endpoint: E, params: Readonly<Record<string, unknown>>, priority: 'high' | 'normal' = 'normal'): Promise<ResponseOf<E>> {
    const spec = this.o.dialect.endpoints[endpoint];
    const wire = this.check(endpoint, params);
    const attempts = spec.idempotent ? Math.max(1, this.o.retry.attempts) : 1;
    let region = 0;
    let resynced = false;
    for (let attempt = 1; ; attempt++) {
      await this.o.limiter.acquire(spec.limit, { priority });
      const started = this.o.clock.nowMs();
      const target = this.o.regions[region] ?? this.o.regions[0]!;
      try {
        const result = await this.attempt(endpoint, wire, target.baseUrl);
        this.report(endpoint, 'ok', started, attempt, target.name);
        return result;
      } catch (err) {
        this.report(endpoint, err instanceof TradebotError ? err.code : 'error', started, attempt, target.name, err);
        let rule = retryRuleOf(err);
        if (rule === 'resyncClock') {
          if (!resynced) {
            // A refused nonce was not executed: one retry after re-measuring the clock, writes included.
            resynced = true;
            await this.resync();
            if (attempt < Math.max(attempts, 2)) continue;
          }
          // Refused again: the venue's 429 body is the same for a rate limit, so back off as for one.
          rule = 'backoff';
        }
        if (attempt >= attempts || rule === 'never') throw err;
        if (rule === 'failover' && this.o.regions.length > 1) {
          region = (region + 1) % this.o.regions.length;
          continue; // the other region is a fresh path: no need to wait
        }
        await this.o.sleep(this.backoffMs(attempt));
      }
    }
  }

  private async resync(): Promise<void> {
    try {
      await this.o.resyncClock?.();
    } catch {
      // The hook reports its own failures; the retry runs on the offset it left.
    }
  }

  /**
   * The request rules on canonical parameters, written in the dialect's wire names. Throws
   * RequestValidationError (nothing sent), naming the fields as the exchange would.
   */
  check(endpoint: EndpointId, params: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const checked = this.codec.encode(endpoint, params);
    if (!checked.ok) {
      throw new RequestValidationError(`${endpoint}: request refused locally (${describe(checked.fieldErrors)})`, checked.fieldErrors, { endpoint });
    }
    return checked.value;
  }

  /** Builds path, headers and body (checked params, fresh nonce, signature). Used by the benchmark too. */
  async prepare(endpoint: EndpointId, wire: Readonly<Record<string, unknown>>): Promise<PreparedRequest> {
    const { path, private: isPrivate } = this.o.dialect.endpoints[endpoint];
    if (!isPrivate) {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(wire)) if (v !== undefined && v !== null) query.set(k, String(v));
      const qs = query.toString();
      return { pathAndQuery: qs === '' ? path : `${path}?${qs}`, headers: undefined, body: undefined };
    }
    const credentials = this.o.credentials;
    if (credentials === undefined) {
      throw new ConfigError(`${endpoint}: private endpoint called without API credentials`, { path: 'exchange.credentials' });
    }
    const nonce = await this.o.nonceSource.nextNonce(credentials.apiKey);
    return this.sign(path, credentials, nonce, wire);
  }

  private sign(path: string, credentials: { readonly apiKey: string; readonly apiSecret: string }, nonce: number, wire: Readonly<Record<string, unknown>>): PreparedRequest {
    const signed = signRequest(credentials, path, nonce, wire, this.o.nonceWindow);
    return { pathAndQuery: path, headers: signed.headers, body: signed.body };
  }

  private async attempt<E extends EndpointId>(endpoint: E, wire: Readonly<Record<string, unknown>>, baseUrl: string): Promise<ResponseOf<E>> {
    const spec = this.o.dialect.endpoints[endpoint];
    const path = spec.path;
    const prepared = await this.prepare(endpoint, wire);
    const res = await this.o.transport.send({
      endpoint,
      method: spec.method,
      url: baseUrl + prepared.pathAndQuery,
      ...(prepared.headers === undefined ? {} : { headers: prepared.headers }),
      ...(prepared.body === undefined ? {} : { body: prepared.body }),
    });
    const body = res.json === NOT_JSON ? undefined : res.json;
    const answer = { endpoint, path, isPrivate: spec.private, status: res.status, body };
    if (res.status >= 400 || isErrorShape(answer)) throw classifyAnswer(answer);
    if (res.json === NOT_JSON) throw badResponse(endpoint, path, res.status, 'not JSON', res.text);
    const parsed = answerSchema(this.o.dialect, endpoint).safeParse(res.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? '' : `${issue.path.join('.') || '(root)'}: ${issue.message}`;
      const reason = `unexpected shape at ${where} (${this.o.dialect.name} dialect)`;
      const foreign = readInOtherDialect(endpoint, res.json, this.o.dialect.name);
      if (foreign !== undefined) {
        const context = badResponse(endpoint, path, res.status, reason, res.text).context;
        throw new ForeignDialectAnswerError(`${endpoint}: answered in the ${foreign.dialect} dialect, not ${this.o.dialect.name}`, foreign.dialect, foreign.value, context);
      }
      throw badResponse(endpoint, path, res.status, reason, res.text);
    }
    return parsed.data as ResponseOf<E>;
  }

  /** Full jitter: uniform in [0, min(max, base * 2^(attempt-1))] (AWS architecture blog). */
  private backoffMs(attempt: number): number {
    const cap = Math.min(this.o.retry.maxDelayMs, this.o.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.o.random() * cap);
  }

  private report(endpoint: EndpointId, outcome: string, started: number, attempt: number, region: 'global' | 'eu', error?: unknown): void {
    if (this.o.onRequest === undefined) return;
    try {
      const durationMs = this.o.clock.nowMs() - started;
      this.o.onRequest({ endpoint, outcome, durationMs, attempt, region, ...(error === undefined ? {} : { error }) });
    } catch {
      // A metrics hook must never break a request.
    }
  }
}

function describe(fieldErrors: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(fieldErrors).map(([k, m]) => `${k}: ${m.join(' ')}`).join('; ');
}

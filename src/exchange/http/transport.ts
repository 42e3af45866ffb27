import ky, { type KyInstance, type Options } from 'ky';
import { ExchangeUnavailableError, RedirectRefusedError, RequestTimeoutError, ResponseTooLargeError, TradebotError } from '../../domain/errors';
import type { EndpointId } from '../wire/endpoints';
import { answerText, createPooledFetch, type PooledFetch, type PooledFetchInit } from './pooled-fetch';

/**
 * One HTTP exchange with the venue, on ky. Choices:
 * - `retry: 0`: ky never retries; the client decides (reads retry, order creation never does).
 * - `throwHttpErrors: false`: every status comes back as data; errors.ts classifies by body + status.
 * - `timeout`: ONE deadline for the whole exchange, connect to last body byte: ky aborts after
 *   `timeoutMs` -> RequestTimeoutError, and the pooled fetch destroys the socket.
 * - `fetch`: node:http(s) keep-alive pools (pooled-fetch.ts) with a response size cap.
 * - redirects are never followed; a 3xx is RedirectRefusedError naming the status and Location.
 * - The body is read as text and parsed here, so a non-JSON answer is data, not an exception.
 * Thrown errors never carry ky's Request object (its headers hold the key and the signature).
 */
export interface TransportRequest {
  readonly endpoint: EndpointId | string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly text: string;
  /** Parsed JSON, or NOT_JSON when the body is empty or not JSON. */
  readonly json: unknown;
}

export const NOT_JSON: unique symbol = Symbol('not-json');

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
}

export interface KyTransportOptions {
  /** Deadline of one exchange, body read included. */
  readonly timeoutMs: number;
  /** Larger answers are refused and their connection dropped (exchange.maxResponseBytes). */
  readonly maxResponseBytes: number;
}

export { DEFAULT_MAX_RESPONSE_BYTES } from './response-cap';

/** Connection-level failure codes after which nothing reached the server (safe to fail over). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export class KyTransport implements Transport {
  private readonly http: KyInstance;
  private readonly pool: PooledFetch;
  private readonly timeoutMs: number;

  constructor(options: KyTransportOptions) {
    this.timeoutMs = options.timeoutMs;
    this.pool = createPooledFetch({ maxResponseBytes: options.maxResponseBytes });
    this.http = ky.create({ retry: 0, throwHttpErrors: false, timeout: options.timeoutMs, redirect: 'manual', fetch: this.pool.fetch });
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const path = new URL(req.url).pathname;
    let response: Response;
    let text: string;
    try {
      const options: Options & PooledFetchInit = {
        method: req.method,
        headers: { Accept: 'application/json', ...req.headers },
        ...(req.body === undefined ? {} : { wireBody: req.body }),
        ...(req.signal === undefined ? {} : { signal: req.signal }),
      };
      response = await this.http(req.url, options);
      text = await answerText(response); // already in memory: the pooled fetch read it within the deadline
    } catch (err) {
      throw this.translate(err, req.endpoint, path);
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location') ?? '(none)';
      throw new RedirectRefusedError(`${req.endpoint}: the server answered ${response.status} redirecting to ${location}; redirects are never followed`, {
        endpoint: req.endpoint, path, httpStatus: response.status, location,
      });
    }
    return { status: response.status, text, json: parseJson(text) };
  }

  /** Closes the pool's idle connections (a CLI command that is done). */
  close(): void {
    this.pool.close();
  }

  private translate(err: unknown, endpoint: EndpointId | string, path: string): Error {
    if (err instanceof ResponseTooLargeError) return new ResponseTooLargeError(`${endpoint}: ${err.message}`, { endpoint, path, ...err.context });
    if (err instanceof TradebotError) return err;
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError') {
      return new RequestTimeoutError(`${endpoint}: no complete answer within ${this.timeoutMs} ms`, { endpoint, path, timeoutMs: this.timeoutMs });
    }
    if (name === 'AbortError') return err as Error; // the caller aborted: pass its reason through
    const code = errorCode(err);
    return new ExchangeUnavailableError(`${endpoint}: connection failed${code === undefined ? '' : ` (${code})`}`, {
      endpoint,
      path,
      errorCode: code,
      // Nothing was sent when the connection could not even be opened: the request had no effect.
      notSent: code !== undefined && NOT_CONNECTED.has(code),
    });
  }
}

function parseJson(text: string): unknown {
  if (text.length === 0) return NOT_JSON;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** undici: TypeError('fetch failed') whose cause (or cause.cause) has the socket error code. */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) e = errors[0];
    else e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

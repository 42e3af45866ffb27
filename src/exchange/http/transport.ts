import ky, { type KyInstance } from 'ky';
import { ExchangeUnavailableError, RequestTimeoutError } from '../../domain/errors';
import type { EndpointId } from './endpoints';

/**
 * One HTTP exchange with the venue, on ky. Choices:
 * - `retry: 0`: ky never retries; the client decides (reads retry, order creation never does).
 * - `throwHttpErrors: false`: every status comes back as data; errors.ts classifies by body + status.
 * - `timeout`: ky aborts the fetch after `timeoutMs` -> RequestTimeoutError.
 * - keep-alive: Node's global fetch (undici) pools and reuses connections per origin by default
 *   (keep-alive on, idle sockets closed after ~4 s), which is what we want for two fixed hosts.
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

/** Connection-level failure codes after which nothing reached the server (safe to fail over). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export class KyTransport implements Transport {
  private readonly http: KyInstance;

  constructor(private readonly timeoutMs: number) {
    this.http = ky.create({ retry: 0, throwHttpErrors: false, timeout: timeoutMs });
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const path = new URL(req.url).pathname;
    let response: Response;
    try {
      response = await this.http(req.url, {
        method: req.method,
        headers: { Accept: 'application/json', ...req.headers },
        ...(req.body === undefined ? {} : { body: req.body }),
        ...(req.signal === undefined ? {} : { signal: req.signal }),
      });
    } catch (err) {
      throw this.translate(err, req.endpoint, path);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw this.translate(err, req.endpoint, path);
    }
    return { status: response.status, text, json: parseJson(text) };
  }

  private translate(err: unknown, endpoint: EndpointId | string, path: string): Error {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError') {
      return new RequestTimeoutError(`${endpoint}: no answer within ${this.timeoutMs} ms`, { endpoint, path, timeoutMs: this.timeoutMs });
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

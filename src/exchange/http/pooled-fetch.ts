import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ResponseTooLargeError } from '../../domain/errors';

/**
 * The `fetch` that ky calls (ky's `fetch` option): node:http(s) over keep-alive agents, one pool per
 * transport. Why not the global fetch: on this machine kind it tops out near 1,000 requests per second
 * even against an empty server, and ky over it near 800 (bench/RESULTS.md); node:http with keep-alive
 * carries ~2,200 signed requests per second against the simulator. It is also where the transport's
 * bounds live, because only here is the socket at hand:
 * - redirects are never followed (node:http does not): a 3xx comes back as a response;
 * - the body is read whole with a byte cap: past `maxResponseBytes` (Content-Length or counted) the
 *   socket is destroyed and ResponseTooLargeError is thrown, nothing more is read;
 * - the request's signal (ky's timeout) aborts the exchange at any point, the body read included,
 *   and destroys the socket, so a body that never ends cannot hold the caller.
 */
export interface PooledFetchOptions {
  readonly maxResponseBytes: number;
  /** Sockets per origin (default 64: more concurrent requests queue in the agent). */
  readonly maxSockets?: number;
}

/**
 * ky forwards options it does not know to its `fetch` (ky's documented `fetch` option gets the
 * Request plus those). The transport hands the body over as `wireBody`, a plain string, so ky never
 * wraps it in a ReadableStream, tees it for retries and cancels the copy: that stream work was most
 * of ky's cost per request (bench/RESULTS.md, "Transport").
 */
export interface PooledFetchInit extends RequestInit {
  readonly wireBody?: string;
}

/**
 * The answer's bytes, decoded once, kept beside the Response (whose body is left empty): reading them
 * back through a web stream would cost more than the rest of the request. answerText() reads them.
 */
const answers = new WeakMap<Response, string>();

/** The text of an answer of the pooled fetch (or, for any other Response, its body read). */
export function answerText(response: Response): Promise<string> {
  const text = answers.get(response);
  return text === undefined ? response.text() : Promise.resolve(text);
}

export interface PooledFetch {
  readonly fetch: (input: string | URL | Request, init?: PooledFetchInit) => Promise<Response>;
  /** Closes the idle sockets of the pool. */
  close(): void;
}

export function createPooledFetch(o: PooledFetchOptions): PooledFetch {
  const maxSockets = o.maxSockets ?? 64;
  const http = new HttpAgent({ keepAlive: true, maxSockets });
  const https = new HttpsAgent({ keepAlive: true, maxSockets });
  const fetch = async (resource: string | URL | Request, init?: PooledFetchInit): Promise<Response> => {
    // ky always hands over a Request (and its unknown options as `init`); anything else is made into one.
    const input = resource instanceof Request ? resource : new Request(resource, init);
    const body = init?.wireBody ?? (input.method === 'GET' || input.method === 'HEAD' || input.body === null ? undefined : await input.text());
    const url = new URL(input.url);
    const headers: Record<string, string> = {};
    input.headers.forEach((value, key) => { headers[key] = value; });
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const secure = url.protocol === 'https:';
    const options = { method: input.method, headers, agent: secure ? https : http };
    return new Promise<Response>((resolve, reject) => {
      const signal = input.signal;
      let settled = false;
      // Whichever comes first settles: the socket's own errors are queued ahead of promise callbacks.
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        req.destroy(); // drop the connection: nothing more is read
        reject(err);
      };
      const onAbort = (): void => fail(signal.reason ?? new DOMException('aborted', 'AbortError'));
      const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
        readCapped(res, o.maxResponseBytes, (bytes) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          const status = res.statusCode ?? 0;
          try {
            // Response refuses statuses outside 200..599 (a hostile server may send 600+): keep it as data.
            const response = new Response(null, { status: status >= 200 && status <= 599 ? status : 599, headers: responseHeaders(res) });
            answers.set(response, bytes.toString('utf8'));
            resolve(response);
          } catch (err) {
            reject(err);
          }
        }, fail);
      });
      req.on('error', fail);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  };
  return {
    fetch,
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
}

/** Hands over the whole body, or fails with ResponseTooLargeError as soon as it is known to exceed `cap` bytes. */
function readCapped(res: IncomingMessage, cap: number, done: (body: Buffer) => void, fail: (err: unknown) => void): void {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > cap) {
    fail(tooLarge(cap, declared));
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  res.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (total > cap) {
      fail(tooLarge(cap, undefined));
      return;
    }
    chunks.push(chunk);
  });
  res.on('end', () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)));
  res.on('error', fail);
  res.on('aborted', () => fail(new Error('the server closed the connection mid-answer')));
}

function tooLarge(cap: number, declared: number | undefined): ResponseTooLargeError {
  const what = declared === undefined ? 'more than' : `${declared} bytes, more than`;
  return new ResponseTooLargeError(`answer of ${what} the ${cap}-byte cap (exchange.maxResponseBytes); connection dropped`, {
    maxResponseBytes: cap, ...(declared === undefined ? {} : { declaredBytes: declared }),
  });
}

/** Only what the transport reads (building all of them per answer is measurable at 2,000/s). */
function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  const location = res.headers.location;
  if (location !== undefined) headers.set('location', location);
  const type = res.headers['content-type'];
  if (type !== undefined) headers.set('content-type', type);
  return headers;
}

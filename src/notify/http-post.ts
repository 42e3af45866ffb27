import * as http from 'node:http';
import * as https from 'node:https';
import type { Secret } from '../config/secret';

/**
 * One JSON POST to a receiver we do not control, bounded in time and in what we read:
 * - `timeoutMs` covers everything, connect to the last byte of the answer (a receiver that accepts
 *   the connection and never answers, or dribbles its answer, is cut there);
 * - at most `maxAnswerBytes` of the answer are read, the rest is never received (a huge answer
 *   costs one socket, not memory);
 * - redirects are not followed (a 3xx is just a status), so a receiver cannot send the message on;
 * - errors never carry the URL (it may be a secret): a PostError says what happened, not where.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The first maxAnswerBytes of the answer, as UTF-8. */
  readonly body: string;
}

export type PostErrorKind = 'timeout' | 'network' | 'shutdown';

/** Why a POST got no answer. The message names the kind and the socket error code, never the URL. */
export class PostError extends Error {
  override readonly name = 'PostError';
  constructor(readonly kind: PostErrorKind, readonly errorCode?: string | undefined) {
    super(errorCode === undefined ? kind : `${kind} (${errorCode})`);
  }
}

export interface PostOptions {
  readonly timeoutMs: number;
  /** Aborts the request when the daemon stops. */
  readonly signal: AbortSignal;
  readonly agent?: http.Agent | undefined;
  readonly maxAnswerBytes?: number;
}

export function postJson(url: Secret<URL>, payload: unknown, options: PostOptions): Promise<PostAnswer> {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const target = url.reveal();
  const client = target.protocol === 'https:' ? https : http;
  const cap = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  return new Promise<PostAnswer>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new PostError('shutdown'));
      return;
    }
    let settled = false;
    let timedOut = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onShutdown);
      outcome();
    };
    const fail = (kind: PostErrorKind, code?: string): void => finish(() => {
      req.destroy();
      reject(new PostError(kind, code));
    });
    const onShutdown = (): void => fail('shutdown');
    const timer = setTimeout(() => {
      timedOut = true;
      fail('timeout');
    }, options.timeoutMs);
    timer.unref();
    options.signal.addEventListener('abort', onShutdown, { once: true });

    const req = client.request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': body.length, 'user-agent': 'tradebot-notify' },
      ...(options.agent === undefined ? {} : { agent: options.agent }),
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => finish(() => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).subarray(0, cap).toString('utf8') });
        // Whatever is left of a large answer is never read: the socket is closed instead.
        if (!res.complete) req.destroy();
      });
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size >= cap) done();
      });
      res.on('end', done);
      res.on('error', (err: NodeJS.ErrnoException) => fail(timedOut ? 'timeout' : 'network', err.code));
      res.on('close', () => {
        if (!res.complete) fail(timedOut ? 'timeout' : 'network', 'ECONNRESET');
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => fail(timedOut ? 'timeout' : 'network', err.code));
    req.end(body);
  });
}

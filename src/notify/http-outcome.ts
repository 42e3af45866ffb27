import type { SendOutcome } from './notice';
import { PostError } from './http-post';

/**
 * What an HTTP answer means for a notification: 2xx delivered; 429 and 408 (the receiver is busy)
 * and 5xx (it is broken for now) are worth another try; any other status (a 4xx: wrong URL, revoked
 * webhook, bad chat id; a 3xx we do not follow) will answer the same again, so it is not retried.
 */
export function outcomeOfStatus(status: number, retryAfterMs: number | undefined, detail?: string): SendOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 429) return { kind: 'retry', reason: 'rate_limited', status, retryAfterMs };
  if (status === 408) return { kind: 'retry', reason: 'timeout', status, retryAfterMs };
  if (status >= 500) return { kind: 'retry', reason: 'server_error', status, retryAfterMs };
  return { kind: 'failed', reason: 'refused', status, detail };
}

/** A POST that got no answer: a timeout or a network error is retried; a shutdown ends the message. */
export function outcomeOfError(error: unknown): SendOutcome {
  if (error instanceof PostError) {
    if (error.kind === 'shutdown') return { kind: 'failed', reason: 'shutdown' };
    return { kind: 'retry', reason: error.kind, ...(error.errorCode === undefined ? {} : { detail: error.errorCode }) };
  }
  return { kind: 'retry', reason: 'network' };
}

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { WebhookTemplate } from '../config/notifications-schema';
import type { Secret } from '../config/secret';
import { parseRetryAfter, retryAfterSeconds } from './backoff';
import { outcomeOfError, outcomeOfStatus } from './http-outcome';
import { postJson } from './http-post';
import type { Notice, NotificationChannel, SendOutcome } from './notice';
import { webhookBody } from './payloads';

export interface WebhookChannelOptions {
  readonly name: string;
  readonly template: WebhookTemplate;
  /** The full URL: a Slack or Discord webhook's path is its credential. */
  readonly url: Secret<URL>;
  readonly timeoutMs: number;
  readonly nowMs?: () => number;
}

/** POSTs each notice as the template's JSON (payloads.ts) to one webhook. */
export class WebhookChannel implements NotificationChannel {
  readonly kind = 'webhook';
  readonly name: string;
  // Its own pool: a hanging receiver's sockets are this channel's, and close() frees them.
  private readonly agent: HttpAgent;

  constructor(private readonly o: WebhookChannelOptions) {
    this.name = o.name;
    this.agent = o.url.reveal().protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  async send(notice: Notice, signal: AbortSignal): Promise<SendOutcome> {
    try {
      const answer = await postJson(this.o.url, webhookBody(this.o.template, notice), { timeoutMs: this.o.timeoutMs, signal, agent: this.agent });
      const header = answer.headers['retry-after'];
      // Slack and most receivers say when in Retry-After; Discord also puts retry_after (seconds) in its JSON answer.
      const retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header, this.o.nowMs?.() ?? Date.now())
        ?? (answer.status === 429 ? retryAfterSeconds(jsonField(answer.body, 'retry_after')) : undefined);
      return outcomeOfStatus(answer.status, retryAfterMs);
    } catch (error) {
      return outcomeOfError(error);
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

function jsonField(body: string, field: string): unknown {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)[field] : undefined;
  } catch {
    return undefined;
  }
}

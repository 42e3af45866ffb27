import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { REDACTED, Secret } from '../config/secret';
import { parseRetryAfter, retryAfterSeconds } from './backoff';
import { outcomeOfError, outcomeOfStatus } from './http-outcome';
import { postJson } from './http-post';
import type { Notice, NotificationChannel, SendOutcome } from './notice';
import { telegramBody } from './payloads';

export interface TelegramChannelOptions {
  readonly name: string;
  /** The Bot API's address (https://api.telegram.org, or a loopback fake in tests). */
  readonly apiUrl: string;
  readonly botToken: Secret;
  readonly chatId: string | number;
  readonly timeoutMs: number;
  readonly nowMs?: () => number;
}

interface BotApiAnswer {
  readonly description?: unknown;
  readonly parameters?: { readonly retry_after?: unknown };
}

/** The Bot API's URL of a method: the token is part of its path, so the whole URL is a Secret. */
export function botMethodUrl(apiUrl: string, token: Secret, method: string): Secret<URL> {
  const url = new URL(apiUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/bot${token.reveal()}/${method}`;
  return new Secret(url);
}

/**
 * Telegram's sendMessage to one chat. The Bot API answers 429 with `parameters.retry_after`
 * (seconds), which is honoured; a refusal's `description` (e.g. "Bad Request: chat not found") is
 * kept for the log, cut short and with the token masked should a receiver echo it.
 */
export class TelegramChannel implements NotificationChannel {
  readonly kind = 'telegram';
  readonly name: string;
  private readonly url: Secret<URL>;
  private readonly agent: HttpAgent;

  constructor(private readonly o: TelegramChannelOptions) {
    this.name = o.name;
    this.url = botMethodUrl(o.apiUrl, o.botToken, 'sendMessage');
    this.agent = this.url.reveal().protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  async send(notice: Notice, signal: AbortSignal): Promise<SendOutcome> {
    try {
      const answer = await postJson(this.url, telegramBody(this.o.chatId, notice), { timeoutMs: this.o.timeoutMs, signal, agent: this.agent });
      const parsed = parse(answer.body);
      const header = answer.headers['retry-after'];
      const retryAfterMs = retryAfterSeconds(parsed?.parameters?.retry_after)
        ?? parseRetryAfter(Array.isArray(header) ? header[0] : header, this.o.nowMs?.() ?? Date.now());
      return outcomeOfStatus(answer.status, retryAfterMs, this.describe(parsed?.description));
    } catch (error) {
      return outcomeOfError(error);
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private describe(description: unknown): string | undefined {
    if (typeof description !== 'string') return undefined;
    return description.split(this.o.botToken.reveal()).join(REDACTED).slice(0, 200);
  }
}

function parse(body: string): BotApiAnswer | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' ? (parsed as BotApiAnswer) : undefined;
  } catch {
    return undefined;
  }
}

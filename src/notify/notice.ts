import type { DaemonEvent } from '../domain/daemon-event';
import type { NOTIFICATION_DROP_REASONS, NOTIFICATION_FAILURE_REASONS, NOTIFICATION_TYPES } from '../metrics/definitions';

/** What a notification is about: a notified event type, or the coalesced "N more suppressed" message. */
export type NoticeType = (typeof NOTIFICATION_TYPES)[number];

/** One message to tell on one channel. */
export interface Notice {
  /** Names the happening (the event's id): what replicas deduplicate on. */
  readonly id: string;
  readonly type: NoticeType;
  readonly atMs: number;
  /** The human line, short enough for a phone's lock screen (event-text.ts). */
  readonly text: string;
  /** The event itself (generic webhooks carry it); absent on the suppressed-summary message. */
  readonly event?: DaemonEvent | undefined;
}

/**
 * Told even over the rate limit, and kept when a full queue drops messages: an operator halting
 * trading or a strategy pausing itself is what someone must hear at 3 a.m., whatever the fills did;
 * and the daily summary, once a day, must not become a line in a "suppressed" count.
 */
export function isUrgent(type: NoticeType): boolean {
  return type === 'trading_state' || type === 'strategy_paused' || type === 'guardrail' || type === 'daily_summary';
}

export type FailureReason = (typeof NOTIFICATION_FAILURE_REASONS)[number];
export type DropReason = (typeof NOTIFICATION_DROP_REASONS)[number];

/** What one attempt came to. A channel never throws: every way an attempt ends is one of these. */
export type SendOutcome =
  | { readonly kind: 'sent' }
  /** Worth another try (5xx, 429, network error, timeout); `retryAfterMs` when the receiver said when. */
  | { readonly kind: 'retry'; readonly reason: FailureReason; readonly status?: number | undefined; readonly retryAfterMs?: number | undefined; readonly detail?: string | undefined }
  /** Trying again cannot help (4xx other than 408 and 429, a redirect), or the daemon is stopping. `detail`: never the URL or a token. */
  | { readonly kind: 'failed'; readonly reason: FailureReason; readonly status?: number | undefined; readonly detail?: string | undefined };

/** One receiver: a webhook or a Telegram chat. */
export interface NotificationChannel {
  readonly name: string;
  /** `webhook` or `telegram`: for logs. */
  readonly kind: string;
  /** One attempt, bounded by the channel's timeout and by `signal` (shutdown). */
  send(notice: Notice, signal: AbortSignal): Promise<SendOutcome>;
  /** Frees what the channel holds (its keep-alive sockets). */
  close(): void;
}

import { z } from 'zod';
import { baseUrlProblem } from './base-url';

/**
 * The `notifications` section (docs/notifications.md): which daemon events go to which webhooks and
 * Telegram chats, how fast, and the daily summary. Secrets (a Slack or Discord webhook URL, a
 * Telegram bot token) are never in the config: a channel names the FILE that holds them
 * (`urlFile`, `botTokenFile`), read once at start (src/notify/channel-config.ts).
 */

/** The bus events a person can be told about (`order` and `candle` are for the console's live page only). */
export const NOTIFIABLE_EVENT_TYPES = ['fill', 'rejection', 'trading_state', 'strategy_paused', 'guardrail', 'version_changed', 'drift'] as const;
export type NotifiableEventType = (typeof NOTIFIABLE_EVENT_TYPES)[number];

export const WEBHOOK_TEMPLATES = ['generic', 'slack', 'discord'] as const;
export type WebhookTemplate = (typeof WEBHOOK_TEMPLATES)[number];

export const DEFAULT_TELEGRAM_API_URL = 'https://api.telegram.org';

/**
 * Hosts whose webhook URLs carry their own credential in the path: anyone holding the URL can post.
 * Such a URL in the config file (copied, committed, mounted into ConfigMaps) is refused: `urlFile`.
 */
const SECRET_WEBHOOK_HOSTS = /(^|\.)(hooks\.slack\.com|discord\.com|discordapp\.com|api\.telegram\.org)$/i;

/** Why `url` may not be given inline, or undefined when it may (also applied to a urlFile's content, minus the inline rule). */
export function webhookUrlProblem(url: string, inline: boolean): string | undefined {
  const problem = baseUrlProblem(url);
  if (problem !== undefined) return problem;
  const parsed = new URL(url);
  if (inline && (parsed.username !== '' || parsed.password !== '')) return 'holds a user or password: put the URL in a file and give urlFile';
  if (inline && SECRET_WEBHOOK_HOSTS.test(parsed.hostname)) {
    return `is a ${parsed.hostname} webhook, whose URL is its password: put it in a file (readable by the daemon only) and give urlFile`;
  }
  return undefined;
}

const channelName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'must be 1-32 lowercase letters, digits, _ or - (it names the channel in logs and metrics)');
const timeoutMs = z.number().int().min(100).max(60_000).default(5000);
const filePath = z.string().min(1);

const webhookChannel = z
  .strictObject({
    type: z.literal('webhook'),
    name: channelName,
    /** `generic`: {id, type, atMs, text, event}; `slack`: {text}; `discord`: {content}. */
    template: z.enum(WEBHOOK_TEMPLATES).default('generic'),
    /** Only for a receiver whose URL is no secret (loopback, an internal relay); otherwise urlFile. */
    url: z.string().superRefine((v, ctx) => {
      const problem = webhookUrlProblem(v, true);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }).optional(),
    /** A file holding the URL (a Kubernetes Secret mounted as a file); a relative path is resolved as `strategies.dir` is. */
    urlFile: filePath.optional(),
    /** Deadline of one attempt, connect to the last byte of the answer. */
    timeoutMs,
  })
  .refine((c) => (c.url === undefined) !== (c.urlFile === undefined), { message: 'give exactly one of url or urlFile' });

const telegramChannel = z.strictObject({
  type: z.literal('telegram'),
  name: channelName,
  /** A file holding the bot token BotFather gave (`123456:ABC...`). */
  botTokenFile: filePath,
  /** The chat's numeric id (negative for groups) or a public channel's @username. */
  chatId: z.union([
    z.number().int(),
    z.string().regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, 'must be a numeric chat id or a channel @username'),
  ]),
  /** The Bot API's address; tests point it at a loopback fake. */
  apiUrl: z.string().superRefine((v, ctx) => {
    const problem = baseUrlProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  }).default(DEFAULT_TELEGRAM_API_URL),
  timeoutMs,
});

export const notificationsSection = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** Which events are told; default all of them. A drift check is told only when unexplained > allowed. */
    events: z.array(z.enum(NOTIFIABLE_EVENT_TYPES)).min(1, 'list at least one event type, or set enabled: false').default([...NOTIFIABLE_EVENT_TYPES]),
    /** Messages per minute per channel; over it, messages are counted and told as one "N more suppressed" message. */
    maxPerMinute: z.number().int().min(1).max(600).default(20),
    /** Messages waiting per channel (a slow or dead receiver); over it the oldest are dropped, counted and logged. */
    queueSize: z.number().int().min(10).max(10_000).default(500),
    /** Tries per message (5xx, 429, network errors, timeouts); 4xx other than 429 is never retried. */
    retry: z
      .strictObject({
        attempts: z.number().int().min(1).max(10).default(5),
        baseDelayMs: z.number().int().min(10).max(60_000).default(1000),
        maxDelayMs: z.number().int().min(10).max(600_000).default(60_000),
      })
      .refine((r) => r.baseDelayMs <= r.maxDelayMs, { message: 'baseDelayMs must not exceed maxDelayMs', path: ['baseDelayMs'] })
      .prefault({}),
    /** Realised PnL and fills of the UTC day so far, told once a day at `atUtc` (wall clock). */
    dailySummary: z
      .strictObject({
        enabled: z.boolean().default(true),
        atUtc: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a UTC time HH:MM, e.g. "23:55"').default('23:55'),
      })
      .prefault({}),
    /** Starts every message, so several deployments can share one chat; default "tradebot <mode>". */
    label: z.string().min(1).max(64).optional(),
    channels: z.array(z.discriminatedUnion('type', [webhookChannel, telegramChannel])).max(16).default([]),
  })
  .superRefine((n, ctx) => {
    if (n.enabled && n.channels.length === 0) {
      ctx.addIssue({
        code: 'custom', path: ['channels'],
        message: 'notifications are enabled but no channel is configured: add a webhook or telegram channel under notifications.channels, or set enabled: false',
      });
    }
    const names = new Set<string>();
    n.channels.forEach((c, i) => {
      if (names.has(c.name)) ctx.addIssue({ code: 'custom', message: `channel name ${c.name} is used twice`, path: ['channels', i, 'name'] });
      names.add(c.name);
    });
    if (new Set(n.events).size !== n.events.length) ctx.addIssue({ code: 'custom', message: 'an event type is listed twice', path: ['events'] });
  })
  .prefault({});

export type NotificationsConfig = z.infer<typeof notificationsSection>;
export type NotificationChannelConfig = NotificationsConfig['channels'][number];

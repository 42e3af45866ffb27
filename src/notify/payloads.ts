import type { WebhookTemplate } from '../config/notifications-schema';
import type { Notice } from './notice';

/**
 * The JSON body each receiver accepts. Texts are cut to the receiver's limit (a longer one is
 * refused outright by Discord and Telegram) and can never ping a whole channel: the text carries
 * reasons typed by operators and venue messages, which are not ours to turn into @everyone.
 */
export const DISCORD_MAX_CONTENT = 2000;
export const TELEGRAM_MAX_TEXT = 4096;
// Slack truncates past 40,000 characters; a notification has no business being longer than this.
export const SLACK_MAX_TEXT = 3000;

/** `text` cut to `max` characters (a cut one ends with an ellipsis). */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Slack reads `<...>` as links and mentions (`<!channel>`) and `&` as an entity: its documented escapes. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webhookBody(template: WebhookTemplate, notice: Notice): unknown {
  switch (template) {
    case 'slack':
      return { text: cut(slackEscape(notice.text), SLACK_MAX_TEXT) };
    case 'discord':
      // No mention in a notification pings anyone (`@everyone` in a rejection reason stays text).
      return { content: cut(notice.text, DISCORD_MAX_CONTENT), allowed_mentions: { parse: [] } };
    case 'generic':
      return { id: notice.id, type: notice.type, atMs: notice.atMs, text: notice.text, ...(notice.event === undefined ? {} : { event: notice.event }) };
    default:
      throw new Error(`unknown webhook template ${String(template)}`);
  }
}

/** Bot API sendMessage: plain text (no parse_mode), so nothing in it is read as markup. */
export function telegramBody(chatId: string | number, notice: Notice): unknown {
  return { chat_id: chatId, text: cut(notice.text, TELEGRAM_MAX_TEXT), link_preview_options: { is_disabled: true } };
}

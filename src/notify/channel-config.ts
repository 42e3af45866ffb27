import * as path from 'node:path';
import { readSecretFile } from '../config/credentials';
import type { DeepReadonly } from '../config/load';
import { webhookUrlProblem, type NotificationsConfig } from '../config/notifications-schema';
import { Secret } from '../config/secret';
import { ConfigError } from '../domain/errors';
import type { NotificationChannel } from './notice';
import { TelegramChannel } from './telegram-channel';
import { WebhookChannel } from './webhook-channel';

/** What BotFather hands out: the bot's numeric id, a colon, and at least 20 letters, digits, _ or -. */
const BOT_TOKEN = /^\d{3,}:[A-Za-z0-9_-]{20,}$/;

/**
 * The configured channels, their secrets read from their files now (at start, and by check-config),
 * so a missing, empty or wrong file stops the start with the key that names it, not the first
 * notification hours later. The secret itself is never echoed in an error; files are relative to
 * `baseDir` (the daemon's base directory, as `strategies.dir` and candle files are).
 */
export function loadNotificationChannels(config: DeepReadonly<NotificationsConfig>, baseDir: string): NotificationChannel[] {
  return config.channels.map((c, i) => {
    const key = `notifications.channels[${i}]`;
    if (c.type === 'telegram') {
      const label = `${key}.botTokenFile`;
      const token = readSecretFile(path.resolve(baseDir, c.botTokenFile), label);
      if (!BOT_TOKEN.test(token)) {
        throw new ConfigError(`${label}: the file does not hold a bot token (digits, a colon, then letters as BotFather gives it)`, { path: label });
      }
      return new TelegramChannel({ name: c.name, apiUrl: c.apiUrl, botToken: new Secret(token), chatId: c.chatId, timeoutMs: c.timeoutMs });
    }
    if (c.urlFile === undefined) return new WebhookChannel({ name: c.name, template: c.template, url: new Secret(new URL(c.url ?? '')), timeoutMs: c.timeoutMs });
    const label = `${key}.urlFile`;
    const url = readSecretFile(path.resolve(baseDir, c.urlFile), label);
    const problem = webhookUrlProblem(url, false);
    if (problem !== undefined) throw new ConfigError(`${label}: the URL in the file ${problem}`, { path: label });
    return new WebhookChannel({ name: c.name, template: c.template, url: new Secret(new URL(url)), timeoutMs: c.timeoutMs });
  });
}

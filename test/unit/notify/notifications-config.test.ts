import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { NOTIFIABLE_EVENT_TYPES } from '../../../src/config/notifications-schema';
import { ConfigError } from '../../../src/domain/errors';
import { loadNotificationChannels } from '../../../src/notify/channel-config';

const TOKEN = '123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp-cfg';
const SLACK_URL = 'https://hooks.slack.com/services/T000/B000/cfg-secret-path-9f1e';

const config = (notifications: unknown): Record<string, unknown> => ({
  mode: 'paper',
  paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
  strategies: { enabled: [{ name: 'sma-cross' }] },
  notifications,
});

function refusal(notifications: unknown): ConfigError {
  try {
    parseConfig(config(notifications), {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('accepted');
}

const hook = { type: 'webhook', name: 'ops', url: 'http://127.0.0.1:9000/hook' };

describe('notifications config', () => {
  test('off by default; the defaults when on', () => {
    expect(parseConfig(config(undefined), {}).notifications.enabled).toBe(false);
    const n = parseConfig(config({ enabled: true, channels: [hook] }), {}).notifications;
    expect(n.events).toEqual([...NOTIFIABLE_EVENT_TYPES]);
    expect(n).toMatchObject({ maxPerMinute: 20, queueSize: 500, retry: { attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 }, dailySummary: { enabled: true, atUtc: '23:55' } });
    expect(n.channels[0]).toEqual({ ...hook, template: 'generic', timeoutMs: 5000 });
  });

  test('enabled without a channel is refused, saying what to do', () => {
    const e = refusal({ enabled: true });
    expect(e.message).toContain('notifications.channels');
    expect(e.message).toMatch(/no channel is configured.*or set enabled: false/);
  });

  test('unknown keys are refused at every level, naming them', () => {
    expect(refusal({ enabled: true, channels: [hook], maxPerMinut: 5 }).message).toContain('notifications.maxPerMinut: unknown setting');
    expect(refusal({ enabled: true, channels: [{ ...hook, tmeout: 5 }] }).message).toContain('notifications.channels.0.tmeout: unknown setting');
    expect(refusal({ enabled: true, channels: [hook], dailySummary: { at: '10:00' } }).message).toContain('notifications.dailySummary.at: unknown setting');
  });

  test('bad values are refused, naming the key', () => {
    expect(refusal({ enabled: true, channels: [{ ...hook, type: 'email' }] }).message).toContain('notifications.channels.0.type');
    expect(refusal({ enabled: true, channels: [hook], events: ['order'] }).message).toContain('notifications.events.0');
    expect(refusal({ enabled: true, channels: [hook], events: ['fill', 'fill'] }).message).toMatch(/notifications.events: an event type is listed twice/);
    expect(refusal({ enabled: true, channels: [hook], dailySummary: { atUtc: '24:00' } }).message).toMatch(/atUtc: must be a UTC time HH:MM/);
    expect(refusal({ enabled: true, channels: [hook, { ...hook }] }).message).toMatch(/channels.1.name: channel name ops is used twice/);
    expect(refusal({ enabled: true, channels: [{ ...hook, name: 'Ops Room' }] }).message).toContain('channels.0.name');
    expect(refusal({ enabled: true, channels: [{ type: 'webhook', name: 'x' }] }).message).toMatch(/exactly one of url or urlFile/);
    expect(refusal({ enabled: true, channels: [{ ...hook, urlFile: 'f' }] }).message).toMatch(/exactly one of url or urlFile/);
    expect(refusal({ enabled: true, channels: [{ type: 'telegram', name: 't', botTokenFile: 'f', chatId: 'me' }] }).message).toContain('channels.0.chatId');
    expect(refusal({ enabled: true, channels: [hook], retry: { baseDelayMs: 5000, maxDelayMs: 100 } }).message).toContain('retry.baseDelayMs');
  });

  test('a secret URL inline (Slack, Discord, userinfo) and plain http off loopback are refused, pointing at urlFile', () => {
    const slack = refusal({ enabled: true, channels: [{ ...hook, url: SLACK_URL }] });
    expect(slack.message).toMatch(/channels.0.url: is a hooks.slack.com webhook, whose URL is its password.*urlFile/);
    expect(refusal({ enabled: true, channels: [{ ...hook, url: 'https://discord.com/api/webhooks/1/abc' }] }).message).toMatch(/urlFile/);
    expect(refusal({ enabled: true, channels: [{ ...hook, url: 'https://u:p@relay.example/hook' }] }).message).toMatch(/user or password/);
    expect(refusal({ enabled: true, channels: [{ ...hook, url: 'http://relay.example/hook' }] }).message).toMatch(/must be https/);
    expect(refusal({ enabled: true, channels: [{ type: 'telegram', name: 't', botTokenFile: 'f', chatId: 1, apiUrl: 'ftp://x' }] }).message).toContain('apiUrl');
  });
});

describe('channel secrets from files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tb-notify-cfg-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (channels: unknown[]) => {
    const c = parseConfig(config({ enabled: true, channels }), {}).notifications;
    const loaded = loadNotificationChannels(c, dir);
    for (const ch of loaded) ch.close();
    return loaded;
  };
  const failure = (channels: unknown[]): ConfigError => {
    try {
      load(channels);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error('loaded');
  };

  test('read relative to the base directory, trimmed', () => {
    writeFileSync(join(dir, 'slack.url'), `${SLACK_URL}\n`);
    writeFileSync(join(dir, 'bot.token'), `${TOKEN}\n`);
    const channels = load([
      { type: 'webhook', name: 'slack', template: 'slack', urlFile: 'slack.url' },
      { type: 'telegram', name: 'tg', botTokenFile: 'bot.token', chatId: -100123 },
    ]);
    expect(channels.map((c) => `${c.name}:${c.kind}`)).toEqual(['slack:webhook', 'tg:telegram']);
  });

  test('a missing file names the key and the path; a wrong file never echoes its content', () => {
    const missing = failure([{ type: 'telegram', name: 'tg', botTokenFile: 'nope.token', chatId: 1 }]);
    expect(missing.message).toContain('notifications.channels[0].botTokenFile');
    expect(missing.message).toContain(join(dir, 'nope.token'));
    expect(missing.message).toContain('ENOENT');

    writeFileSync(join(dir, 'empty'), '\n');
    expect(failure([{ type: 'webhook', name: 'w', urlFile: 'empty' }]).message).toMatch(/channels\[0\]\.urlFile is empty/);

    writeFileSync(join(dir, 'not-a-token'), 'cfg-not-a-token-value');
    const token = failure([{ type: 'telegram', name: 'tg', botTokenFile: 'not-a-token', chatId: 1 }]);
    expect(token.message).toMatch(/does not hold a bot token/);
    expect(token.message).not.toContain('cfg-not-a-token-value');

    writeFileSync(join(dir, 'plain.url'), 'http://relay.example/cfg-secret-path-9f1e');
    const url = failure([{ type: 'webhook', name: 'w', urlFile: 'plain.url' }]);
    expect(url.message).toMatch(/channels\[0\]\.urlFile: the URL in the file must be https/);
    expect(url.message).not.toContain('cfg-secret-path-9f1e');
  });
});

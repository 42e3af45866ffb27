import { Registry } from 'prom-client';
import { SystemClock } from '../../../src/core/clock';
import { Secret } from '../../../src/config/secret';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import type { NotificationChannel } from '../../../src/notify/notice';
import { Notifier } from '../../../src/notify/notifier';
import { MemorySendClaims } from '../../../src/notify/send-claims';
import { TelegramChannel } from '../../../src/notify/telegram-channel';
import { WebhookChannel } from '../../../src/notify/webhook-channel';
import { counter, FakeReceiver, fillEvent, until } from './notify-harness';

const TOKEN = '4243:retries-test-token-BBBBBBBBBBBBBBBB';

describe('retries against real receivers', () => {
  let receiver: FakeReceiver;
  let notifier: Notifier | undefined;
  let metrics: Metrics;
  beforeEach(async () => {
    receiver = await FakeReceiver.start();
    metrics = createMetrics(new Registry(), { defaultMetrics: false });
  });
  afterEach(async () => {
    await notifier?.close(0);
    await receiver.close();
  });
  const start = (channel: NotificationChannel, attempts = 4): Notifier => {
    notifier = new Notifier({
      channels: [channel], claims: new MemorySendClaims(), types: ['fill'], metrics, log: createLogger({ level: 'silent' }), clock: new SystemClock(),
      maxPerMinute: 600, queueSize: 100, retry: { attempts, baseDelayMs: 20, maxDelayMs: 100 }, label: 'tb',
    });
    return notifier;
  };
  const webhook = (): WebhookChannel => new WebhookChannel({ name: 'hook', template: 'slack', url: new Secret(new URL(`${receiver.origin}/hook`)), timeoutMs: 2000 });

  test('a webhook answering 500 twice then 200: delivered once, after two retries', async () => {
    receiver.answer = (_r, n) => (n <= 2 ? { status: 500 } : { status: 200 });
    start(webhook()).notify(fillEvent(1));
    await until(async () => (await counter(metrics, 'notificationsSent', { channel: 'hook' })) === 1, 'the delivery');
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received.map((r) => r.body)).toEqual(Array(3).fill({ text: '[tb] BTC_USDT sma-cross: bought 0.01 at 47201.5 (fee 0.47)' }));
    expect(await counter(metrics, 'notificationsRetried', { channel: 'hook', type: 'fill' })).toBe(2);
    expect(await counter(metrics, 'notificationsFailed')).toBe(0);
  });

  test('a 4xx other than 429 is not retried; 5xx past the last try is given up, counted by reason', async () => {
    receiver.answer = (r) => (String(r.body['text']).includes('47201') ? { status: 404 } : { status: 503 });
    const n = start(webhook(), 2);
    n.notify(fillEvent(1));
    n.notify(fillEvent(2));
    await until(async () => (await counter(metrics, 'notificationsFailed')) === 2, 'both give-ups');
    expect(receiver.received).toHaveLength(3);
    expect(await counter(metrics, 'notificationsFailed', { reason: 'refused' })).toBe(1);
    expect(await counter(metrics, 'notificationsFailed', { reason: 'server_error' })).toBe(1);
  });

  test('Telegram 429 with parameters.retry_after: the next try waits that long', async () => {
    receiver.answer = (_r, n) => (n === 1
      ? { status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } }
      : { status: 200, body: { ok: true, result: {} } });
    start(new TelegramChannel({ name: 'tg', apiUrl: receiver.origin, botToken: new Secret(TOKEN), chatId: '@ops_room', timeoutMs: 2000 })).notify(fillEvent(1));
    await until(async () => (await counter(metrics, 'notificationsSent', { channel: 'tg' })) === 1, 'the delivery');
    expect(receiver.received).toHaveLength(2);
    // Backoff alone would have retried after 10-20 ms: the gap is the receiver's second.
    expect((receiver.received[1]?.atMs ?? 0) - (receiver.received[0]?.atMs ?? 0)).toBeGreaterThanOrEqual(950);
    expect(receiver.received[1]?.body).toMatchObject({ chat_id: '@ops_room' });
  });

  test('a webhook 429 with Retry-After is honoured the same way', async () => {
    receiver.answer = (_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 });
    start(webhook()).notify(fillEvent(1));
    await until(async () => (await counter(metrics, 'notificationsSent', { channel: 'hook' })) === 1, 'the delivery');
    expect((receiver.received[1]?.atMs ?? 0) - (receiver.received[0]?.atMs ?? 0)).toBeGreaterThanOrEqual(950);
  });
});

import { Registry } from 'prom-client';
import { SystemClock } from '../../../src/core/clock';
import { Secret } from '../../../src/config/secret';
import type { DaemonEvent } from '../../../src/domain/daemon-event';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import { Notifier } from '../../../src/notify/notifier';
import { RedisSendClaims } from '../../../src/notify/send-claims';
import { TelegramChannel } from '../../../src/notify/telegram-channel';
import { WebhookChannel } from '../../../src/notify/webhook-channel';
import { StoreKeys } from '../../../src/store/keys';
import { RedisTestContext } from '../store/redis-test-context';
import { counter, FakeReceiver, fillEvent, haltEvent, until } from './notify-harness';

const TOKEN = '4242:replicas-test-token-AAAAAAAAAAAAAAAA';

/**
 * Two notifiers sharing one Redis stand for two replicas of one deployment: both hear every event
 * (same ids), and each event reaches each receiver once.
 */
describe('two replicas, one Redis', () => {
  const redisCtx = new RedisTestContext();
  let hook: FakeReceiver;
  let telegram: FakeReceiver;
  afterEach(async () => {
    await hook.close();
    await telegram.close();
    await redisCtx.cleanup();
  });

  test('each event arrives once at the webhook and once in the Telegram chat', async () => {
    hook = await FakeReceiver.start();
    telegram = await FakeReceiver.start();
    const keys = new StoreKeys('replicas', redisCtx.prefix());
    const replica = async (): Promise<{ notifier: Notifier; metrics: Metrics }> => {
      const metrics = createMetrics(new Registry(), { defaultMetrics: false });
      const notifier = new Notifier({
        channels: [
          new WebhookChannel({ name: 'hook', template: 'generic', url: new Secret(new URL(`${hook.origin}/hook`)), timeoutMs: 2000 }),
          new TelegramChannel({ name: 'tg', apiUrl: telegram.origin, botToken: new Secret(TOKEN), chatId: -100777, timeoutMs: 2000 }),
        ],
        claims: new RedisSendClaims(await redisCtx.client(), keys), types: ['fill', 'trading_state', 'daily_summary'],
        metrics, log: createLogger({ level: 'silent' }), clock: new SystemClock(), maxPerMinute: 600, queueSize: 500,
        retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 100 }, label: 'tb paper',
      });
      return { notifier, metrics };
    };
    const a = await replica();
    const b = await replica();
    const events: DaemonEvent[] = [
      ...Array.from({ length: 20 }, (_, i) => fillEvent(i)), haltEvent(1),
      { type: 'daily_summary', id: 'daily:2026-11-28', atMs: Date.now(), day: '2026-11-28', realizedPnl: '1.5', fills: 20 },
    ];
    // Each replica hears every event, in its own order.
    for (const e of events) a.notifier.notify(e);
    for (const e of [...events].reverse()) b.notifier.notify(e);
    // Settled: every (replica, channel, event) either sent or skipped as claimed elsewhere.
    const settled = async (): Promise<number> => {
      let n = 0;
      for (const r of [a, b]) n += (await counter(r.metrics, 'notificationsSent')) + (await counter(r.metrics, 'notificationsDeduplicated'));
      return n;
    };
    await until(async () => (await settled()) === 2 * 2 * events.length, 'both replicas to settle every event');
    await a.notifier.close(0);
    await b.notifier.close(0);

    expect(hook.ids().sort()).toEqual(events.map((e) => e.id).sort());
    expect(new Set(hook.received.map((r) => r.path))).toEqual(new Set(['/hook']));
    expect(hook.received.find((r) => r.body['id'] === 'state:e1:1')?.body).toMatchObject({
      type: 'trading_state', text: '[tb paper] Trading HALTED (was active): operator: console alice: drill 1', event: { state: 'halted', previous: 'active' },
    });
    const texts = telegram.received.map((r) => String(r.body['text']));
    expect(texts).toHaveLength(events.length);
    expect(new Set(texts).size).toBe(events.length);
    expect(new Set(telegram.received.map((r) => r.path))).toEqual(new Set([`/bot${TOKEN}/sendMessage`]));
    expect(new Set(telegram.received.map((r) => r.body['chat_id']))).toEqual(new Set([-100777]));
    // Both replicas did part of the work: the claims split it, not one replica's silence.
    expect((await counter(a.metrics, 'notificationsDeduplicated')) + (await counter(b.metrics, 'notificationsDeduplicated'))).toBe(2 * events.length);
  });
});

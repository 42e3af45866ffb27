import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { SystemClock } from '../../../src/core/clock';
import { Secret } from '../../../src/config/secret';
import { createLogger } from '../../../src/log/logger';
import { createMetrics } from '../../../src/metrics/registry';
import { Notifier } from '../../../src/notify/notifier';
import { MemorySendClaims } from '../../../src/notify/send-claims';
import { TelegramChannel } from '../../../src/notify/telegram-channel';
import { WebhookChannel } from '../../../src/notify/webhook-channel';
import { counter, FakeReceiver, fillEvent, until } from './notify-harness';

const TOKEN = '4244:hanging-test-token-CCCCCCCCCCCCCCCCC';

/** A receiver that accepts the connection and never answers holds its own channel and nothing else. */
describe('a receiver that never answers', () => {
  const receivers: FakeReceiver[] = [];
  let huge: Server | undefined;
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    huge?.closeAllConnections();
    huge?.close();
  });

  test('notify() returns before any I/O; the other channels deliver; the dead one times out, counted', async () => {
    const [dead, ok, telegram] = await Promise.all([FakeReceiver.start(), FakeReceiver.start(), FakeReceiver.start()]);
    receivers.push(dead!, ok!, telegram!);
    dead!.answer = () => 'hang';
    const metrics = createMetrics(new Registry(), { defaultMetrics: false });
    const notifier = new Notifier({
      channels: [
        new WebhookChannel({ name: 'dead', template: 'generic', url: new Secret(new URL(`${dead!.origin}/hook`)), timeoutMs: 300 }),
        new WebhookChannel({ name: 'ok', template: 'discord', url: new Secret(new URL(`${ok!.origin}/hook`)), timeoutMs: 2000 }),
        new TelegramChannel({ name: 'tg', apiUrl: telegram!.origin, botToken: new Secret(TOKEN), chatId: 5, timeoutMs: 2000 }),
      ],
      claims: new MemorySendClaims(), types: ['fill'], metrics, log: createLogger({ level: 'silent' }), clock: new SystemClock(),
      maxPerMinute: 600, queueSize: 500, retry: { attempts: 2, baseDelayMs: 20, maxDelayMs: 50 }, label: 'tb',
    });
    // The producer's side: 200 events told in one synchronous run. Nothing reached any receiver
    // meanwhile: no send ran on the producer's time, whatever the dead receiver does.
    for (let i = 0; i < 200; i++) notifier.notify(fillEvent(i));
    expect(dead!.received.length + ok!.received.length + telegram!.received.length).toBe(0);

    await until(() => ok!.received.length === 200 && telegram!.received.length === 200, 'the live channels');
    // Meanwhile the dead channel is still on its first message (2 tries of 300 ms).
    expect(await counter(metrics, 'notificationsSent', { channel: 'dead' })).toBe(0);
    await until(async () => (await counter(metrics, 'notificationsFailed', { channel: 'dead', reason: 'timeout' })) >= 1, 'the first timeout give-up');
    expect(await counter(metrics, 'notificationsRetried', { channel: 'dead' })).toBeGreaterThanOrEqual(1);
    await notifier.close(0);
    // What was still queued on the dead channel at the stop is counted, not silently lost.
    const failed = await counter(metrics, 'notificationsFailed', { channel: 'dead' });
    expect(failed + (await counter(metrics, 'notificationsDropped', { channel: 'dead', reason: 'shutdown' }))).toBe(200);
  });

  test('a huge answer is not read past the cap: the message counts as delivered', async () => {
    let written = 0;
    huge = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = (): void => {
          while (written < 512 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => huge!.listen(0, '127.0.0.1', resolve));
    const metrics = createMetrics(new Registry(), { defaultMetrics: false });
    const notifier = new Notifier({
      channels: [new WebhookChannel({ name: 'huge', template: 'generic', url: new Secret(new URL(`http://127.0.0.1:${(huge.address() as AddressInfo).port}/`)), timeoutMs: 10_000 })],
      claims: new MemorySendClaims(), types: ['fill'], metrics, log: createLogger({ level: 'silent' }), clock: new SystemClock(),
      maxPerMinute: 600, queueSize: 100, retry: { attempts: 1, baseDelayMs: 20, maxDelayMs: 50 }, label: 'tb',
    });
    notifier.notify(fillEvent(1));
    await until(async () => (await counter(metrics, 'notificationsSent', { channel: 'huge' })) === 1, 'the delivery');
    await notifier.close(0);
    // The server stopped being able to write long before its 512 MiB: we closed the socket.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });
});

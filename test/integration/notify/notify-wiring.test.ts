import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNotifications } from '../../../src/app/notify-wiring';
import { StoreKeys } from '../../../src/store/keys';
import { scanText } from '../../helpers/secret-scan';
import { connectRedis, createRedis } from '../../../src/store/redis';
import { RedisTestContext, testRedisUrl } from '../store/redis-test-context';
import { capturedLogger, counter, daemonContext, FakeReceiver, fillEvent, haltEvent, until } from './notify-harness';

// Distinctive, so a hit in a log or in /metrics is never a coincidence.
const HOOK_SECRET = 'hooksecret-7d2f0b19e4-never-log';
const BOT_TOKEN = '987654321:botsecret-3a9c5e71d0-NEVERLOG';

/** startNotifications as the daemon runs it: config, secret files, the event bus, the closer. */
describe('notifications wired on the daemon\'s event bus', () => {
  let dir: string;
  const receivers: FakeReceiver[] = [];
  const redisCtx = new RedisTestContext();
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tb-notify-wiring-'));
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    rmSync(dir, { recursive: true, force: true });
    await redisCtx.cleanup();
  });

  test('tells what people want (not order moves, candles, tolerated drift), once per event; the closer flushes', async () => {
    const hook = await FakeReceiver.start();
    receivers.push(hook);
    const { log } = capturedLogger();
    const ctx = daemonContext({ enabled: true, label: 'desk-1', dailySummary: { enabled: false }, channels: [{ type: 'webhook', name: 'ops', url: `${hook.origin}/hook` }] }, dir, log);
    startNotifications(ctx, undefined, new StoreKeys('wiring', 'tbtest'));
    const bus = ctx.events;
    bus.emit(fillEvent(1));
    bus.emit(fillEvent(1)); // heard twice (a stream push and a REST poll): told once
    bus.emit({ type: 'order', id: 'order:x:OrderAccepted', atMs: 1, clientOrderId: 'x', status: 'OrderAccepted' });
    bus.emit({ type: 'candle', id: 'candle:x', atMs: 1, market: 'BTC_USDT', candleTime: 1 });
    bus.emit({ type: 'drift', id: 'drift:1:2', atMs: 1, unexplained: 1, allowed: 1, from: 0, to: 60, first: [] });
    bus.emit({ type: 'drift', id: 'drift:3:4', atMs: 1, unexplained: 2, allowed: 1, from: 0, to: 60, first: ['a'] });
    bus.emit(haltEvent(7));
    for (const closer of [...ctx.closers].reverse()) await closer.close();
    expect(hook.ids()).toEqual(['fill:tb-it-1:0.01', 'drift:3:4', 'state:e1:7']);
    expect(String(hook.received[2]?.body['text'])).toBe('[desk-1] Trading HALTED (was active): operator: console alice: drill 7');
    expect(await counter(ctx.metrics, 'notificationsDeduplicated', { channel: 'ops', type: 'fill' })).toBe(1);
    // After the closer, the bus no longer reaches the notifier.
    bus.emit(fillEvent(2));
    expect(await counter(ctx.metrics, 'notificationsDropped')).toBe(0);
  });

  test('Redis unreachable when claiming: the halt is still told (twice is better than never), with one warn line', async () => {
    const hook = await FakeReceiver.start();
    receivers.push(hook);
    const { log, text } = capturedLogger();
    const ctx = daemonContext({ enabled: true, dailySummary: { enabled: false }, channels: [{ type: 'webhook', name: 'ops', url: `${hook.origin}/hook` }] }, dir, log);
    // A connection to the run's Redis, then lost: every command fails at once (the daemon's connections
    // queue nothing while down). A short command timeout: its timer, armed even for a refused command, ends soon.
    const lost = createRedis(testRedisUrl(), { lazyConnect: true, commandTimeoutMs: 50 });
    await connectRedis(lost);
    lost.disconnect();
    startNotifications(ctx, lost, new StoreKeys('wiring', redisCtx.prefix()));
    ctx.events.emit(haltEvent(1));
    ctx.events.emit(fillEvent(1));
    await until(() => hook.received.length === 2, 'both messages');
    for (const closer of [...ctx.closers].reverse()) await closer.close();
    expect(hook.ids()).toEqual(['state:e1:1', 'fill:tb-it-1:0.01']);
    expect(text().match(/notification claims unavailable/g)).toHaveLength(1);
  });

  test('secrets (webhook URL path, bot token) never appear in logs or /metrics, whatever the receivers answer', async () => {
    const [slack, telegram] = [await FakeReceiver.start(), await FakeReceiver.start()];
    receivers.push(slack, telegram);
    // A hostile or broken receiver: refuses, and echoes what it got (the bot token is in the URL it was called on).
    slack.answer = (_r, n) => (n % 2 === 1 ? { status: 500, body: { error: `bad ${HOOK_SECRET}` } } : { status: 200 });
    telegram.answer = (r, n) => (n === 1 ? { status: 400, body: { ok: false, error_code: 400, description: `Bad Request: chat not found ${r.path}` } } : { status: 200, body: { ok: true } });
    writeFileSync(join(dir, 'slack.url'), `${slack.origin}/services/${HOOK_SECRET}\n`);
    writeFileSync(join(dir, 'bot.token'), `${BOT_TOKEN}\n`);
    const { log, text } = capturedLogger();
    const ctx = daemonContext({
      enabled: true, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 }, dailySummary: { enabled: false },
      channels: [
        { type: 'webhook', name: 'slack', template: 'slack', urlFile: 'slack.url', timeoutMs: 1000 },
        { type: 'telegram', name: 'tg', botTokenFile: join(dir, 'bot.token'), chatId: 42, apiUrl: telegram.origin, timeoutMs: 1000 },
      ],
    }, dir, log);
    startNotifications(ctx, undefined, new StoreKeys('wiring', 'tbtest'));
    ctx.events.emit(haltEvent(1));
    ctx.events.emit(fillEvent(1));
    await until(async () => (await counter(ctx.metrics, 'notificationsSent')) + (await counter(ctx.metrics, 'notificationsFailed')) === 4, 'every message settled');
    for (const closer of [...ctx.closers].reverse()) await closer.close();

    // The secrets were used (the receivers saw them) ...
    expect(slack.received[0]?.path).toBe(`/services/${HOOK_SECRET}`);
    expect(telegram.received[0]?.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(await counter(ctx.metrics, 'notificationsFailed', { channel: 'tg', reason: 'refused' })).toBe(1);
    // ... and nothing we print holds them: the log (debug level, the refusal's echoed description included) and /metrics.
    const logged = text();
    expect(logged).toContain('notification given up');
    expect(logged).toContain('Bad Request: chat not found /bot[REDACTED]/sendMessage');
    const exposition = await ctx.registry.metrics();
    expect(exposition).toContain('tradebot_notifications_sent_total{channel="slack",type="trading_state"} 1');
    for (const [where, printed] of [['log', logged], ['/metrics', exposition]] as const) {
      expect([where, scanText(printed, where, { secrets: [HOOK_SECRET, BOT_TOKEN, BOT_TOKEN.split(':')[1] ?? ''] })]).toEqual([where, []]);
    }
  });
});

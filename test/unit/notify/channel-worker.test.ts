import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/core/clock';
import type { DaemonEvent } from '../../../src/domain/daemon-event';
import { createLogger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';
import { ChannelWorker } from '../../../src/notify/channel-worker';
import type { Notice, NotificationChannel, SendOutcome } from '../../../src/notify/notice';
import { MemorySendClaims } from '../../../src/notify/send-claims';

/**
 * The worker's own rules (claims, rate limit and its suppressed summary, retries, queue bound,
 * shutdown) against an in-process channel: what a receiver answers is scripted here; real HTTP
 * receivers are in test/integration/notify/.
 */
class ScriptedChannel implements NotificationChannel {
  readonly kind = 'scripted';
  readonly name = 'c1';
  /** Ids of the messages delivered, and their texts. */
  readonly sent: string[] = [];
  readonly texts: string[] = [];
  readonly attempts: string[] = [];
  script: SendOutcome[] = [];
  hold: Promise<void> | undefined;

  async send(notice: Notice, signal: AbortSignal): Promise<SendOutcome> {
    this.attempts.push(notice.id);
    if (this.hold !== undefined) {
      await Promise.race([this.hold, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      if (signal.aborted) return { kind: 'failed', reason: 'shutdown' };
    }
    const outcome = this.script.shift() ?? { kind: 'sent' };
    if (outcome.kind === 'sent') {
      this.sent.push(notice.id.startsWith('suppressed:') ? 'suppressed' : notice.id);
      this.texts.push(notice.text);
    }
    return outcome;
  }

  close(): void {}
}

function notice(id: string, type: 'fill' | 'rejection' | 'trading_state' = 'fill'): DaemonEvent {
  if (type === 'trading_state') return { type, id, atMs: 0, state: 'halted', previous: 'active', reason: id };
  if (type === 'rejection') return { type, id, atMs: 0, clientOrderId: id, reason: 'no' };
  return { type, id, atMs: 0, strategy: 's', market: 'BTC_USDT', side: 'buy', amount: '1', price: '1', fee: '0', clientOrderId: id };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

async function value(metrics: Metrics, key: 'notificationsSent' | 'notificationsFailed' | 'notificationsRetried' | 'notificationsDropped' | 'notificationsDeduplicated', labels: Record<string, string>): Promise<number> {
  const values = (await metrics[key].get()).values;
  return values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x)).reduce((a, v) => a + v.value, 0);
}

describe('a channel worker', () => {
  let channel: ScriptedChannel;
  let metrics: Metrics;
  let clock: ManualClock;
  let lines: string[];
  let worker: ChannelWorker;
  const start = (o: { maxPerMinute?: number; queueSize?: number; attempts?: number } = {}): ChannelWorker => {
    worker = new ChannelWorker({
      channel, claims: new MemorySendClaims(), metrics, clock, label: 'tb',
      log: createLogger({ destination: new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }) }),
      maxPerMinute: o.maxPerMinute ?? 100, queueSize: o.queueSize ?? 100, retry: { attempts: o.attempts ?? 3, baseDelayMs: 5, maxDelayMs: 20 },
    });
    return worker;
  };
  beforeEach(() => {
    channel = new ScriptedChannel();
    metrics = createMetrics(new Registry(), { defaultMetrics: false });
    clock = new ManualClock(1_000_000);
    lines = [];
  });
  afterEach(async () => worker.close(0));

  test('over the rate limit: urgent messages still go, the others are told later as one message', async () => {
    start({ maxPerMinute: 2 });
    for (const id of ['f1', 'f2', 'f3', 'f4', 'f5']) worker.enqueue(notice(id));
    worker.enqueue(notice('halt', 'trading_state'));
    worker.enqueue(notice('r1', 'rejection'));
    await until(() => channel.sent.length === 3);
    expect(channel.sent).toEqual(['f1', 'f2', 'halt']);
    expect(channel.texts[2]).toBe('[tb] Trading HALTED (was active): halt');
    expect(await value(metrics, 'notificationsDropped', { reason: 'rate_limited', type: 'fill' })).toBe(3);
    clock.advanceMs(120_000);
    worker.enqueue(notice('f6'));
    await until(() => channel.sent.length === 5);
    expect(channel.texts[3]).toBe('[tb] 4 more notifications suppressed (over 2 per minute on this channel): 3 fill, 1 rejection. The daemon\'s log has each one.');
    expect(channel.sent[4]).toBe('f6');
    expect(lines.filter((l) => l.includes('over the rate limit'))).toHaveLength(1);
  });

  test('the same event twice is sent once (claims)', async () => {
    start();
    worker.enqueue(notice('same'));
    worker.enqueue(notice('same'));
    worker.enqueue(notice('other'));
    await until(() => channel.sent.length === 2);
    expect(await value(metrics, 'notificationsDeduplicated', { channel: 'c1', type: 'fill' })).toBe(1);
  });

  test('retries what is worth retrying, gives up after the last try, never retries a refusal', async () => {
    start({ attempts: 3 });
    channel.script = [{ kind: 'retry', reason: 'server_error', status: 500 }, { kind: 'retry', reason: 'network' }, { kind: 'sent' }];
    worker.enqueue(notice('a'));
    await until(() => channel.sent.length === 1);
    expect(channel.attempts).toEqual(['a', 'a', 'a']);
    channel.script = [{ kind: 'retry', reason: 'timeout' }, { kind: 'retry', reason: 'timeout' }, { kind: 'retry', reason: 'timeout' }, { kind: 'failed', reason: 'refused', status: 404 }];
    worker.enqueue(notice('b'));
    worker.enqueue(notice('c'));
    await until(() => channel.attempts.length === 7);
    await until(() => lines.filter((l) => l.includes('given up')).length === 2);
    expect(await value(metrics, 'notificationsRetried', { channel: 'c1' })).toBe(4);
    expect(await value(metrics, 'notificationsFailed', { reason: 'timeout' })).toBe(1);
    expect(await value(metrics, 'notificationsFailed', { reason: 'refused' })).toBe(1);
    expect(await value(metrics, 'notificationsSent', { channel: 'c1' })).toBe(1);
    const refused = JSON.parse(lines.find((l) => l.includes('"refused"')) ?? '{}') as Record<string, unknown>;
    expect(refused).toMatchObject({ channel: 'c1', reason: 'refused', status: 404, attempts: 1, id: 'c', msg: 'notification given up' });
  });

  test('a full queue drops the oldest non-urgent message (logged once per burst); shutdown cuts the rest, counted', async () => {
    let release = (): void => undefined;
    channel.hold = new Promise((r) => { release = r; });
    start({ queueSize: 3 });
    worker.enqueue(notice('busy'));
    await until(() => channel.attempts.length === 1);
    worker.enqueue(notice('halt', 'trading_state'));
    for (const id of ['f1', 'f2', 'f3', 'f4']) worker.enqueue(notice(id));
    await turn(); // drops reach the metric once per turn of the event loop
    expect(await value(metrics, 'notificationsDropped', { reason: 'queue_full' })).toBe(2);
    expect(lines.filter((l) => l.includes('queue full'))).toHaveLength(1);
    await worker.close(20);
    release();
    expect(channel.sent).toEqual([]);
    expect(await value(metrics, 'notificationsFailed', { reason: 'shutdown' })).toBe(1);
    expect(await value(metrics, 'notificationsDropped', { reason: 'shutdown' })).toBe(3);
    worker.enqueue(notice('late'));
    await turn();
    expect(await value(metrics, 'notificationsDropped', { reason: 'shutdown' })).toBe(4);
  });
});

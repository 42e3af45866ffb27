import { setTimeout as delay } from 'node:timers/promises';
import type { Counter } from 'prom-client';
import type { Clock } from '../core/clock';
import type { DaemonEvent } from '../domain/daemon-event';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';
import { retryDelayMs, type BackoffPolicy } from './backoff';
import { BoundedQueue } from './bounded-queue';
import { eventText, labelled, suppressedText } from './event-text';
import { isUrgent, type DropReason, type Notice, type NoticeType, type NotificationChannel } from './notice';
import type { SendClaims } from './send-claims';
import { TokenBucket } from './token-bucket';

export interface ChannelWorkerOptions {
  readonly channel: NotificationChannel;
  readonly claims: SendClaims;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Wall clock: the rate limit is real time. */
  readonly clock: Clock;
  readonly maxPerMinute: number;
  readonly queueSize: number;
  readonly retry: BackoffPolicy & { readonly attempts: number };
  /** Starts every message (event-text.ts labelled). */
  readonly label: string;
  readonly random?: () => number;
}

/**
 * One channel's queue and the one worker that empties it. enqueue() only pushes the event into a
 * bounded queue and returns: a dead, slow or hanging receiver holds this worker and nothing else (not
 * the producer, not the other channels). For each event the worker
 *   claims it (send-claims.ts: only one replica sends an event) ->
 *   takes a rate-limit token (urgent ones go over the limit; the others are counted and later told
 *   as one "N more suppressed" message) ->
 *   writes its line (event-text.ts: here, not on the producer's time) and sends it, retrying 5xx, 429, timeouts and network errors with backoff (Retry-After honoured),
 *   giving up after `retry.attempts` tries (counted, logged without the URL or token).
 */
export class ChannelWorker {
  readonly name: string;
  private readonly queue: BoundedQueue<DaemonEvent>;
  private readonly bucket: TokenBucket;
  private readonly stopping = new AbortController();
  /** Messages held back by the rate limit, by type, until they are told as one. */
  private readonly suppressed = new Map<string, number>();
  private suppressedSeq = 0;
  private wake: (() => void) | undefined;
  private closing = false;
  /** Dropped since the queue was last empty (one log line per burst, not one per drop). */
  private droppedInBurst = 0;
  private claimsDown = false;
  /** Counter series by labels, looked up once. */
  private readonly series = new Map<Counter<string>, Map<string, Counter.Internal>>();
  /**
   * Drops counted on the producer's time (a burst into a full queue) by `type|reason`, added to the
   * metric once per turn of the event loop: a drop costs the producer a map update, not a metric update.
   */
  private readonly drops = new Map<string, number>();
  private dropsFlushQueued = false;
  private readonly done: Promise<void>;

  constructor(private readonly o: ChannelWorkerOptions) {
    this.name = o.channel.name;
    this.queue = new BoundedQueue<DaemonEvent>(o.queueSize, (e) => isUrgent(e.type as NoticeType));
    this.bucket = new TokenBucket(o.maxPerMinute, o.clock);
    this.done = this.run();
  }

  /** Queues `event` (a notified type, filtered by the Notifier) and returns at once. */
  enqueue(event: DaemonEvent): void {
    if (this.closing) {
      this.count(event, 'shutdown');
      return;
    }
    const dropped = this.queue.push(event);
    if (dropped !== undefined) {
      this.count(dropped, 'queue_full');
      if (this.droppedInBurst++ === 0) {
        this.o.log.warn({ channel: this.name, queueSize: this.o.queueSize, dropped: dropped.type }, 'notification queue full (receiver slow or down): dropping the oldest messages');
      }
    }
    this.wake?.();
  }

  /** Stops taking messages, sends what is queued for up to `drainMs`, then cuts the rest (counted, logged). */
  async close(drainMs: number): Promise<void> {
    this.closing = true;
    this.wake?.();
    await Promise.race([this.done, delay(drainMs, undefined, { ref: false })]);
    this.stopping.abort();
    await this.done;
    this.o.channel.close();
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const event = this.queue.shift();
      if (event === undefined) {
        if (this.closing) break;
        await this.idle();
        continue;
      }
      if (this.queue.length === 0 && this.droppedInBurst > 0) {
        this.o.log.warn({ channel: this.name, dropped: this.droppedInBurst }, 'notification queue has room again');
        this.droppedInBurst = 0;
      }
      await this.handle(event);
    }
    const left = this.queue.drain();
    for (const n of left) this.count(n, 'shutdown');
    this.flushDrops();
    if (left.length > 0 || this.suppressed.size > 0) {
      this.o.log.warn({ channel: this.name, unsent: left.length, suppressed: Object.fromEntries(this.suppressed) }, 'notifications not sent at shutdown');
    }
  }

  /** Nothing queued: wait for a message, or tell what the rate limit held back once a token is free. */
  private async idle(): Promise<void> {
    if (this.suppressed.size === 0) return this.nextItem();
    const waitMs = this.bucket.msUntilToken();
    if (waitMs > 0) return this.nextItem(waitMs);
    if (this.bucket.take()) await this.deliver(this.suppressedNotice());
  }

  private async handle(event: DaemonEvent): Promise<void> {
    const type = event.type as NoticeType;
    const claim = await this.o.claims.claim(this.name, event.id);
    if (claim === 'taken') {
      this.seriesOf(this.o.metrics.notificationsDeduplicated, { type }).inc();
      return;
    }
    this.noteClaims(claim === 'unavailable');
    if (isUrgent(type)) {
      this.bucket.force();
    } else {
      if (this.suppressed.size > 0 && this.bucket.take()) await this.deliver(this.suppressedNotice());
      if (!this.bucket.take()) {
        if (this.suppressed.size === 0) {
          this.o.log.warn({ channel: this.name, maxPerMinute: this.o.maxPerMinute }, 'notifications over the rate limit: the next ones are counted and told as one message');
        }
        this.suppressed.set(type, (this.suppressed.get(type) ?? 0) + 1);
        this.count(event, 'rate_limited');
        return;
      }
    }
    const text = eventText(event);
    if (text !== undefined) await this.deliver({ id: event.id, type, atMs: event.atMs, text: labelled(this.o.label, text), event });
  }

  private async deliver(notice: Notice): Promise<void> {
    const labels = { type: notice.type };
    const signal = this.stopping.signal;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.o.channel.send(notice, signal);
      if (outcome.kind === 'sent') {
        this.seriesOf(this.o.metrics.notificationsSent, labels).inc();
        if (attempt > 1) this.o.log.info({ channel: this.name, type: notice.type, id: notice.id, attempts: attempt }, 'notification sent after retries');
        return;
      }
      if (outcome.kind === 'failed' || attempt >= this.o.retry.attempts || signal.aborted) {
        const reason = signal.aborted ? 'shutdown' : outcome.reason;
        this.seriesOf(this.o.metrics.notificationsFailed, { ...labels, reason }).inc();
        // Never the URL or the token: the channel's name, what failed and how.
        this.o.log.warn({
          channel: this.name, kind: this.o.channel.kind, type: notice.type, id: notice.id, reason, attempts: attempt,
          ...(outcome.status === undefined ? {} : { status: outcome.status }), ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
        }, 'notification given up');
        return;
      }
      this.seriesOf(this.o.metrics.notificationsRetried, labels).inc();
      const waitMs = retryDelayMs(attempt, outcome.retryAfterMs, this.o.retry, this.o.random);
      this.o.log.debug({ channel: this.name, type: notice.type, reason: outcome.reason, status: outcome.status, attempt, waitMs }, 'notification attempt failed: retrying');
      await delay(waitMs, undefined, { signal, ref: false }).catch(() => undefined);
    }
  }

  private suppressedNotice(): Notice {
    const text = labelled(this.o.label, suppressedText(this.suppressed, this.o.maxPerMinute));
    this.suppressed.clear();
    return { id: `suppressed:${this.name}:${process.pid}:${++this.suppressedSeq}`, type: 'notifications_suppressed', atMs: this.o.clock.nowMs(), text };
  }

  /** One line when claims stop working (Redis down: messages go out without dedupe) and one when they work again. */
  private noteClaims(down: boolean): void {
    if (down === this.claimsDown) return;
    this.claimsDown = down;
    if (down) this.o.log.warn({ channel: this.name }, 'notification claims unavailable (Redis): sending without deduplication, replicas may each send');
    else this.o.log.info({ channel: this.name }, 'notification claims work again');
  }

  private count(event: DaemonEvent, reason: DropReason): void {
    const key = `${event.type}|${reason}`;
    this.drops.set(key, (this.drops.get(key) ?? 0) + 1);
    if (this.dropsFlushQueued) return;
    this.dropsFlushQueued = true;
    setImmediate(() => this.flushDrops());
  }

  private flushDrops(): void {
    this.dropsFlushQueued = false;
    for (const [key, n] of this.drops) {
      const [type = '', reason = ''] = key.split('|');
      this.seriesOf(this.o.metrics.notificationsDropped, { type, reason }).inc(n);
    }
    this.drops.clear();
  }

  /** This channel's series of `metric` with `labels` (channel added). */
  private seriesOf(metric: Counter<string>, labels: Readonly<Record<string, string>>): Counter.Internal {
    let byLabels = this.series.get(metric);
    if (byLabels === undefined) {
      byLabels = new Map();
      this.series.set(metric, byLabels);
    }
    const key = Object.values(labels).join('|');
    let child = byLabels.get(key);
    if (child === undefined) {
      child = metric.labels({ ...labels, channel: this.name });
      byLabels.set(key, child);
    }
    return child;
  }

  private nextItem(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.stopping.signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.stopping.signal.addEventListener('abort', done, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs).unref();
    });
  }
}

import { NOTIFICATION_DROP_REASONS, NOTIFICATION_FAILURE_REASONS } from '../metrics/definitions';
import type { DaemonEvent, DaemonEventType } from '../domain/daemon-event';
import { ChannelWorker, type ChannelWorkerOptions } from './channel-worker';
import type { NoticeType, NotificationChannel } from './notice';

/** A channel worker's options, for every channel, plus which event types are told. */
export interface NotifierOptions extends Omit<ChannelWorkerOptions, 'channel'> {
  readonly channels: readonly NotificationChannel[];
  /** The event types told (config `notifications.events`, plus `daily_summary` when it is on). */
  readonly types: readonly NoticeType[];
}

/**
 * The daemon's events, told on every channel. notify() is what the event bus calls, on the producer's
 * time: it picks the events people want, queues each on every channel and returns; writing the line
 * and sending it happen in each channel's worker (channel-worker.ts).
 */
export class Notifier {
  private readonly workers: ChannelWorker[];
  private readonly types: ReadonlySet<DaemonEventType>;

  constructor(o: NotifierOptions) {
    this.types = new Set(o.types.filter((t): t is DaemonEventType & NoticeType => t !== 'notifications_suppressed'));
    const { channels: _channels, types: _types, ...workerOptions } = o;
    this.workers = o.channels.map((channel) => new ChannelWorker({
      ...workerOptions, channel,
    }));
    // Zero series, so increase() sees the first message, failure, retry, drop and duplicate of each kind.
    for (const channel of o.channels) {
      for (const type of this.types) {
        const labels = { channel: channel.name, type };
        o.metrics.notificationsSent.inc(labels, 0);
        o.metrics.notificationsRetried.inc(labels, 0);
        o.metrics.notificationsDeduplicated.inc(labels, 0);
        for (const reason of NOTIFICATION_FAILURE_REASONS) o.metrics.notificationsFailed.inc({ ...labels, reason }, 0);
        for (const reason of NOTIFICATION_DROP_REASONS) o.metrics.notificationsDropped.inc({ ...labels, reason }, 0);
      }
    }
  }

  notify(event: DaemonEvent): void {
    if (!this.types.has(event.type)) return;
    // A drift check is news only when more differences are unexplained than the deployment tolerates.
    if (event.type === 'drift' && event.unexplained <= event.allowed) return;
    for (const worker of this.workers) worker.enqueue(event);
  }

  /** Sends what is queued for up to `drainMs`, then stops every channel (what is left is counted and logged). */
  async close(drainMs: number): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close(drainMs)));
  }
}

import { componentLogger } from '../log/logger';
import { loadNotificationChannels } from '../notify/channel-config';
import { DailySummary, type DailyFigures } from '../notify/daily-summary';
import type { NoticeType } from '../notify/notice';
import { Notifier } from '../notify/notifier';
import { MemorySendClaims, RedisSendClaims } from '../notify/send-claims';
import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import type { DaemonContext } from './daemon-context';

/** How long a stopping daemon keeps sending what is queued (a halt told right before the stop), at most. */
const DRAIN_MS = 3000;

/**
 * Notifications (config `notifications`, docs/notifications.md): the daemon's events (ctx.events)
 * told on webhooks and Telegram, each event once across replicas (claims in Redis; in this process
 * without it), and the daily summary emitted on the bus at `dailySummary.atUtc`. The channels'
 * secret files are read here, at start: a missing one stops the start (ConfigError, exit 78).
 * `dailyFigures` reads the day's realised PnL from the portfolio once trading is wired; until it
 * answers (or without it) the summary says the PnL is unavailable.
 */
export function startNotifications(
  ctx: DaemonContext, redis: RedisConnection | undefined, keys: StoreKeys, dailyFigures?: () => DailyFigures | undefined,
): void {
  const c = ctx.config.notifications;
  if (!c.enabled) return;
  const log = componentLogger(ctx.log, 'notifications');
  const channels = loadNotificationChannels(c, ctx.baseDir);
  const summaryOn = c.dailySummary.enabled;
  const types: NoticeType[] = [...c.events, ...(summaryOn ? ['daily_summary' as const] : [])];
  const notifier = new Notifier({
    channels, claims: redis === undefined ? new MemorySendClaims() : new RedisSendClaims(redis, keys), types,
    metrics: ctx.metrics, log, clock: ctx.wallClock, maxPerMinute: c.maxPerMinute, queueSize: c.queueSize, retry: c.retry,
    label: c.label ?? `tradebot ${ctx.config.mode}`,
  });
  const summary = summaryOn
    ? new DailySummary({ atUtc: c.dailySummary.atUtc, clock: ctx.wallClock, emit: (event) => ctx.events.emit(event), figures: dailyFigures })
    : undefined;
  const unsubscribe = ctx.events.subscribe((event) => {
    summary?.observe(event);
    notifier.notify(event);
  });
  summary?.start();
  log.info({
    channels: channels.map((ch) => `${ch.name} (${ch.kind})`), events: types, dedupe: redis === undefined ? 'in-process' : 'redis',
    maxPerMinute: c.maxPerMinute, ...(summaryOn ? { dailySummaryAtUtc: c.dailySummary.atUtc } : {}),
  }, 'notifications on');
  ctx.closers.push({
    name: 'notifications',
    close: async () => {
      summary?.stop();
      unsubscribe();
      await notifier.close(Math.min(DRAIN_MS, ctx.config.shutdown.graceMs / 2));
    },
  });
}

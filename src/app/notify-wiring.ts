import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import type { DaemonContext } from './daemon-context';

/**
 * Notifications (config `notifications`): the daemon's events (ctx.events) sent to webhooks and
 * Telegram, once across replicas. Placeholder until the notifier lands.
 */
export function startNotifications(_ctx: DaemonContext, _redis: RedisConnection | undefined, _keys: StoreKeys): void {
  // filled in by the notifications work (src/notify/)
}

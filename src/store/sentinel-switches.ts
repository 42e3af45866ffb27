import Redis from 'ioredis';

/** What following one master group's switches needs: where its sentinels are, and how to reach them. */
export interface SentinelSwitchSource {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  readonly name: string;
  readonly sentinelPassword?: string | undefined;
  readonly tls: boolean;
}

/**
 * Moves `redis` to the new primary as soon as any sentinel announces a switch of ITS master group,
 * instead of only when the old primary's connection breaks (a demoted primary that stays up would
 * otherwise keep serving reads and refusing writes with READONLY).
 *
 * This replaces ioredis's own `failoverDetector`, which ends the client for good ("Connection is
 * closed", status `end`) when the announcement lands while the client is reconnecting: the usual
 * moment, since the old primary has just died. Here a switch only drops a READY connection, with
 * `disconnect(true)`, which reconnects through the sentinels; a connection being made already asks
 * them. Announcements for other master groups sharing the sentinels are ignored.
 *
 * The subscriptions end with the client: its `end` event, or its owner's `disconnect()`/`quit()`
 * (ioredis emits no `end` for a client disconnected while it was reconnecting, and the
 * subscriptions would then retry dead sentinels for ever, keeping the process alive).
 */
export function followSentinelSwitches(redis: Redis, source: SentinelSwitchSource, reconnectDelay: (times: number) => number): void {
  const subscribers = source.sentinels.map((s) => {
    const sub = new Redis({
      host: s.host, port: s.port,
      ...(source.sentinelPassword === undefined ? {} : { password: source.sentinelPassword }),
      ...(source.tls ? { tls: {} } : {}),
      // Subscriptions only: queued until the sentinel answers, renewed after each reconnect.
      retryStrategy: reconnectDelay,
      connectionName: 'tradebot-sentinel-watch',
    });
    sub.on('error', () => undefined); // a sentinel down is normal; the others still announce
    sub.on('message', (channel: string, message: string) => {
      if (channel !== SWITCH_CHANNEL || message.split(' ')[0] !== source.name) return;
      if (redis.status === 'ready') redis.disconnect(true);
    });
    sub.subscribe(SWITCH_CHANNEL).catch(() => undefined);
    return sub;
  });
  const stop = (): void => { for (const sub of subscribers) sub.disconnect(); };
  redis.once('end', stop);
  const disconnect = redis.disconnect.bind(redis);
  redis.disconnect = (reconnect?: boolean): void => {
    if (reconnect !== true) stop();
    disconnect(reconnect);
  };
  const quit = redis.quit.bind(redis);
  redis.quit = ((...args: Parameters<Redis['quit']>) => {
    stop();
    return quit(...args);
  }) as Redis['quit'];
}

/** Sentinel's announcement: `<master name> <old ip> <old port> <new ip> <new port>`. */
const SWITCH_CHANNEL = '+switch-master';

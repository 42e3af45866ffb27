import type { MarketClock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { intervalSeconds, type Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { ExchangeClient } from '../exchange/exchange-client';
import { StreamSupervisor, type StreamObserver, type StreamTimings } from '../exchange/stream/stream-supervisor';
import { AccountStreamConsumer } from '../execution/reconciliation/account-stream';
import type { AccountStreamView } from '../execution/kernel/candle-settlement';
import type { ExecutionEvents } from '../execution/journal/events';
import { componentLogger, type Logger } from '../log/logger';
import { CandleRolloverWatch, LastPriceBook } from '../market-data/market-stream';
import { PUSH_MISMATCH_FIELDS } from '../metrics/definitions';
import type { Metrics } from '../metrics/registry';
import type { Execution } from './execution-wiring';
import type { OrderStore } from '../store/order-store-port';

/** Methods counted by tradebot_stream_messages_total (a bounded label set). */
const COUNTED = new Set(['ordersPending_update', 'deals_update', 'candles_update', 'lastprice_update']);

export interface StreamsInput {
  readonly config: FrozenConfig;
  /** ws:// of the embedded simulator in paper mode, else config.exchange.websocket.url. */
  readonly url: string;
  /** For the per-connection token (signed, through the limiter). */
  readonly exchange: Pick<ExchangeClient, 'fetchWebsocketToken'>;
  readonly metrics: Metrics;
  readonly log: Logger;
}

export function streamTimings(c: FrozenConfig): StreamTimings {
  const w = c.exchange.websocket;
  return {
    pingIntervalMs: w.pingIntervalMs, pongTimeoutMs: w.pongTimeoutMs, staleAfterMs: w.staleAfterMs,
    backoff: { baseMs: w.backoffMinMs, maxMs: w.backoffMaxMs },
  };
}

export const usesAccountStream = (c: FrozenConfig): boolean => c.exchange.streams === 'all' || c.exchange.streams === 'account';
export const usesMarketStream = (c: FrozenConfig): boolean => c.exchange.streams === 'all' || c.exchange.streams === 'market';

/** Metrics and log lines of one supervisor. Never the token or a frame. */
function observe(name: string, m: Metrics, log: Logger): StreamObserver {
  const stream = { stream: name };
  m.streamConnected.set(stream, 0);
  m.streamHealthy.set(stream, 0);
  for (const c of [m.streamInvalid, m.streamReconnects, m.streamResyncs, m.streamStaleFallbacks]) c.inc(stream, 0);
  return {
    connected: (up) => m.streamConnected.set(stream, up ? 1 : 0),
    message: (method) => { if (COUNTED.has(method)) m.streamMessages.inc({ stream: name, method }); },
    invalid: (reason) => {
      m.streamInvalid.inc(stream);
      log.debug({ stream: name, reason }, 'stream message ignored');
    },
    reconnect: (delayMs, cause) => {
      m.streamReconnects.inc(stream);
      log.info({ stream: name, cause, delayMs }, 'stream reconnecting');
    },
    resync: () => m.streamResyncs.inc(stream),
    staleFallback: () => {
      m.streamStaleFallbacks.inc(stream);
      log.warn({ stream: name }, 'stream silent: back to REST polling until it is healthy again');
    },
    health: (healthy) => {
      m.streamHealthy.set(stream, healthy ? 1 : 0);
      log.info({ stream: name, healthy }, healthy ? 'stream healthy: its pushes are used' : 'stream unhealthy: REST polling');
    },
  };
}

export interface AccountStream extends AccountStreamView {
  readonly supervisor: StreamSupervisor;
  readonly consumer: AccountStreamConsumer;
  /** While healthy: true on only every `reconcileEvery`-th call (the periodic reconciliation runs less often). */
  reconcileNow(): boolean;
  stop(): void;
}

/**
 * The account stream (`ordersPending` and `deals` of the strategies' markets) into the journal.
 * Resync as documented: the venue asked over REST (every live record of those markets), then the
 * subscriptions, then asked again for what moved in between. Started after the first reconciliation.
 */
export function startAccountStream(
  i: StreamsInput & { readonly markets: readonly MarketName[]; readonly exec: Pick<Execution, 'settler' | 'reconciler'>; readonly store: OrderStore; readonly events: ExecutionEvents; readonly onChange: (market: MarketName) => void },
): AccountStream {
  const log = componentLogger(i.log, 'stream');
  const changed = new Set<MarketName>();
  const observer = observe('account', i.metrics, log);
  const consumer = new AccountStreamConsumer({
    store: i.store, events: i.events,
    settleRecord: (record) => i.exec.settler.settle(record),
    settleMarket: (market) => i.exec.reconciler.settleMarket(market),
    onChange: (market) => {
      changed.add(market);
      i.onChange(market);
    },
    onInvalid: (reason) => observer.invalid?.(reason),
    onMismatch: (clientOrderId, d) => {
      i.metrics.streamPushMismatches.inc({ field: d.field });
      log.warn({ clientOrderId, field: d.field, journal: d.journaled, push: d.reported }, 'order push disagrees with the journal record it names: not applied, the venue is asked over REST');
    },
  });
  // Zero series up front, so the first mismatch shows as an increase.
  for (const field of PUSH_MISMATCH_FIELDS) i.metrics.streamPushMismatches.inc({ field }, 0);
  const resyncAll = async (): Promise<void> => {
    for (const market of i.markets) if ((await i.exec.reconciler.settleMarket(market)) > 0) changed.add(market);
  };
  const supervisor = new StreamSupervisor({
    name: 'account', url: i.url, timings: streamTimings(i.config), token: () => i.exchange.fetchWebsocketToken(),
    resync: async (phase) => {
      if (phase === 'before') consumer.reset();
      await resyncAll();
    },
    onPush: (method, params) => consumer.onPush(method, params), observer,
  });
  supervisor.subscribe({ method: 'ordersPending_subscribe', params: [...i.markets] });
  supervisor.subscribe({ method: 'deals_subscribe', params: [[...i.markets]] });
  supervisor.start();
  const every = i.config.exchange.websocket.reconcileEvery;
  let calls = 0;
  return {
    supervisor, consumer,
    isHealthy: () => supervisor.isHealthy(),
    idle: () => consumer.idle(),
    takeChanged: (market) => changed.delete(market),
    reconcileNow: () => {
      if (!supervisor.isHealthy()) return true;
      calls += 1;
      return calls % every === 0;
    },
    stop: () => {
      supervisor.stop();
      consumer.stop();
    },
  };
}

export interface MarketStreams {
  /** The stream's last price when fresh (the risk price band's reference), else undefined. */
  lastPrice(market: MarketName): Decimal | undefined;
  /** The candle stream of (market, interval) is healthy: it triggers the kline fetch at each close. */
  triggers(market: MarketName, interval: Interval): boolean;
  stop(): void;
}

/**
 * One connection per candle subscription (`candles_subscribe` takes one market and interval per
 * connection); the first also carries `lastprice` for every market. Rollovers trigger the flow's
 * REST kline fetch (`onClosed`).
 */
export function startMarketStreams(
  i: StreamsInput & {
    readonly subscriptions: readonly { readonly market: MarketName; readonly interval: Interval }[];
    readonly marketClock: MarketClock;
    readonly onClosed: (market: MarketName, interval: Interval, openTime: number) => void;
  },
): MarketStreams {
  const log = componentLogger(i.log, 'stream');
  const w = i.config.exchange.websocket;
  const prices = new LastPriceBook(w.staleAfterMs);
  const markets = [...new Set(i.subscriptions.map((s) => s.market))];
  const entries = i.subscriptions.map((sub, n) => {
    const name = `market:${sub.market}:${sub.interval}`;
    const observer = observe(name, i.metrics, log);
    const watch = new CandleRolloverWatch(sub.market, sub.interval, {
      clock: i.marketClock, cacheMs: w.klineCacheMs, onClosed: i.onClosed, onInvalid: (reason) => observer.invalid?.(reason),
    });
    const supervisor = new StreamSupervisor({
      name, url: i.url, timings: streamTimings(i.config),
      resync: async (phase) => { if (phase === 'before') watch.reset(); },
      onPush: (method, params) => {
        if (method === 'lastprice_update') prices.onPush(method, params, (reason) => observer.invalid?.(reason));
        else watch.onPush(method, params);
      },
      observer,
    });
    supervisor.subscribe({ method: 'candles_subscribe', params: [sub.market, intervalSeconds(sub.interval)] });
    if (n === 0) supervisor.subscribe({ method: 'lastprice_subscribe', params: markets });
    supervisor.start();
    return { sub, supervisor, watch };
  });
  return {
    lastPrice: (market) => prices.get(market),
    triggers: (market, interval) => entries.some((e) => e.sub.market === market && e.sub.interval === interval && e.supervisor.isHealthy()),
    stop: () => {
      for (const e of entries) {
        e.supervisor.stop();
        e.watch.stop();
      }
    },
  };
}

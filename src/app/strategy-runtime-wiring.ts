import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import type { ExchangeClient } from '../exchange/exchange-client';
import { componentLogger, type Logger } from '../log/logger';
import { initStrategySeries, recordCandleClose, type Metrics } from '../metrics/registry';
import { GuestHost, type GuestStrategy } from '../strategy/guest/guest-host';
import { strategyConfigs } from './strategy-wiring';
import { CandleFlow, type IntentSink } from '../strategy/candle-flow';
import { settleBeforeCandle, type AccountStreamView } from '../execution/candle-settlement';
import type { Interval } from '../domain/candle';
import type { MarketName } from '../domain/market';
import type { Trading } from './trading-wiring';
import type { DeploymentRecorder } from '../drift/deployment-recorder';

export interface StrategyRuntimeInput {
  readonly config: FrozenConfig;
  readonly strategies: readonly GuestStrategy[];
  /** The strategy module directory (absolute): each guest loads its own module from it. */
  readonly strategyDir: string;
  readonly exchange: ExchangeClient;
  readonly trading: Trading;
  readonly sink: IntentSink;
  /** The exchange's time (market clock in paper mode). */
  readonly marketClock: Clock;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Records what the strategies got (the drift check); absent when `drift.record` is off. */
  readonly recorder?: DeploymentRecorder | undefined;
  /** The WebSocket streams, when configured (stream-wiring.ts). */
  readonly streams?: {
    readonly account: AccountStreamView | undefined;
    marketTriggers(market: MarketName, interval: Interval): boolean;
  };
}

/**
 * The strategies as guests (GuestHost: a worker thread each, no daemon environment, a heap limit, a
 * deadline that terminates the thread; failures counted, paused, restarted and re-warmed) fed by the
 * candle flow (closed candles only, warm-up, staleness guard), with their events observed by metrics
 * and logs. Start the host (`host.start()`) before the warm-up; close it at shutdown.
 */
export function wireStrategyRuntime(i: StrategyRuntimeInput): { readonly host: GuestHost; readonly flow: CandleFlow } {
  const c = i.config;
  const m = i.metrics;
  const { balances, book, exec, positions, feedback } = i.trading;
  for (const s of i.strategies) initStrategySeries(m, s.name, s.markets);
  const configs = strategyConfigs(c);
  const host = new GuestHost({
    strategies: i.strategies, dir: i.strategyDir, configFor: (name) => configs[name] ?? {}, heapMb: c.strategies.guestHeapMb, isolation: c.strategies.guestIsolation, clock: i.marketClock, logger: componentLogger(i.log, 'strategy'),
    timeBudgetMs: c.strategies.timeBudgetMs, maxConsecutiveFailures: c.strategies.maxConsecutiveFailures,
    view: {
      balances: () => balances.latest()?.balances ?? {},
      openOrders: (strategy, market) => book.of(strategy, market),
      marketInfo: (market) => exec.catalog.cached(market),
      position: (strategy, market, close) => feedback.feedback.position(strategy, market, close),
      events: (strategy, market) => feedback.feedback.take(strategy, market),
    },
    events: {
      onError: (e) => m.strategyErrors.inc({ strategy: e.strategy }),
      onOverrun: (e) => m.strategyOverruns.inc({ strategy: e.strategy }),
      onDuration: (e) => m.strategyDuration.observe({ strategy: e.strategy }, e.elapsedMs / 1000),
      onPaused: (e) => {
        m.strategyPaused.set({ strategy: e.strategy }, 1);
        i.log.error({ strategy: e.strategy, consecutiveFailures: e.consecutiveFailures }, 'strategy paused after repeated failures');
      },
      onResumed: (e) => m.strategyPaused.set({ strategy: e.strategy }, 0),
      onRestart: (e) => i.log.warn({ strategy: e.strategy, reason: e.reason }, 'strategy thread ended: restarting it fresh and re-warming it from the candle history'),
      onIntents: (e) => i.log.debug({ strategy: e.strategy, market: e.market, candleTime: e.candleTime, intents: e.intents.length }, 'intents'),
    },
  });
  const flow = new CandleFlow({
    host, client: i.exchange, clock: i.marketClock, log: componentLogger(i.log, 'candles'), klineDelayMs: c.polling.klineDelayMs,
    sink: i.sink,
    beforeStrategies: settleBeforeCandle({
      reconciler: exec.reconciler, book, feedback,
      pollBalances: async () => { await Promise.all([balances.poll(), i.trading.collateral.poll()]); },
      stream: i.streams?.account,
    }),
    ...(i.streams === undefined ? {} : { streamTriggers: (mk: MarketName, iv: Interval) => i.streams?.marketTriggers(mk, iv) === true }),
    warmupFor: (market, interval) => Math.max(1, ...i.strategies.filter((s) => s.interval === interval && s.markets.includes(market)).map((s) => s.warmup)),
    hooks: {
      onCandle: (market, interval, closeTime, close) => {
        recordCandleClose(m, market, interval, closeTime);
        positions.price(market, close);
      },
      onDelivered: (e) => i.recorder?.onCandle(e),
      onStaleIntents: (intents) => {
        i.recorder?.onStale(intents);
        for (const x of intents) {
          m.intents.inc({ strategy: x.strategy, result: 'denied', rule: 'stale_candle' });
          feedback.feedback.denied(x.strategy, x.intent.market, 'stale_candle', 'computed on a candle older than one interval');
        }
      },
    },
  });
  return { host, flow };
}

import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { SystemClock, type Clock } from '../core/clock';
import { loadCredentials } from '../config/credentials';
import type { FrozenConfig } from '../config/load';
import { intervalSeconds } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import { ConfigError, NotReadyError, TradebotError } from '../domain/errors';
import type { Balances, MarketName } from '../domain/market';
import { syncClockOffset } from '../exchange/clock-offset';
import type { ExchangeClient } from '../exchange/exchange-client';
import { componentLogger, type Logger } from '../log/logger';
import { BalancePoller } from '../market-data/balance-poller';
import { ScaledMarketClock, WallMarketClock, type MarketClock } from '../market-data/market-clock';
import { createMetrics, recordCandleClose, recordKillSwitchRefresh, setTradingState, type Metrics } from '../metrics/registry';
import { startMetricsServer, type CheckResult, type MetricsServer, type ReadinessCheck } from '../metrics/server';
import { LIMIT_IDS } from '../limiter/limits';
import type { RateLimiter } from '../limiter/rate-limiter';
import { KillSwitchManager } from '../risk/kill-switch';
import { RiskEngine } from '../risk/risk-engine';
import { StoreKeys } from '../store/keys';
import { checkRedisHealth, connectRedis, createRedis } from '../store/redis';
import { StrategyHost } from '../strategy/strategy-host';
import { CandleFlow, type IntentSink } from './candle-flow';
import { createExchangeClient } from './exchange-wiring';
import { buildExecution, executionEventSink, type Execution } from './execution-wiring';
import { MeteredOrderStore } from './metered-order-store';
import { OpenOrderBook } from './open-order-book';
import { PAPER_API_KEY, startPaperExchange, type PaperExchange } from './paper-exchange';
import { PnlTracker } from './pnl-tracker';
import { RiskGate } from '../execution/risk-gate';
import { riskLimitsFromConfig } from './risk-wiring';
import { CronJobScheduler, createJobScheduler, type JobEvents, type JobScheduler } from './scheduler';
import { memoryAdapters, redisAdapters, type StateAdapters } from './stores';
import { loadConfiguredStrategies, warmupSeconds } from './strategy-wiring';
import { TradingStateControl } from './trading-state-control';

export interface AppInput {
  readonly config: FrozenConfig;
  /** Relative paths of the config (candle files, strategy dir) resolve against it. */
  readonly baseDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Injected, never prom-client's global registry. */
  readonly registry: Registry;
  readonly version?: string;
}

interface Closer {
  readonly name: string;
  close(): Promise<unknown>;
}

/**
 * THE composition root: adapters wired into services by constructor injection, started in order
 *   metrics server -> Redis -> (paper: embedded exchange) -> clock offset -> markets -> reconcile
 *   -> strategies -> warm-up -> scheduler
 * and stopped in reverse (stop()). Nothing is submitted before the first reconciliation succeeded.
 */
export class TradebotApp {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly wallClock: Clock = new SystemClock();
  metricsServer: MetricsServer | undefined;
  paper: PaperExchange | undefined;
  tradingControl: TradingStateControl | undefined;
  private marketClock: MarketClock = new WallMarketClock();
  private readonly closers: Closer[] = [];
  private redis: Redis | undefined;
  private redisUp = true;
  private schedulers: JobScheduler[] = [];
  private execution: Execution | undefined;
  private stopping = false;
  private exchange: ExchangeClient | undefined;
  private limiter: RateLimiter | undefined;
  private lastExchangeCheck: { atMs: number; result: CheckResult } | undefined;

  constructor(private readonly input: AppInput) {
    this.log = input.logger;
    const c = input.config;
    this.metrics = createMetrics(input.registry, {
      clock: { nowMs: () => this.marketClock.nowMs() }, redis: c.redis.url !== undefined,
      ...(input.version === undefined ? {} : { version: input.version }),
    });
  }

  /** Runs the start sequence; resolves once the scheduler runs. `signal` aborts waiting steps (shutdown during start). */
  async start(signal: AbortSignal): Promise<void> {
    const c = this.input.config;
    const log = this.log;
    const m = this.metrics;

    // 1. metrics server (first, so a stuck start-up is visible on /readyz)
    if (c.metrics.enabled) {
      const readiness: ReadinessCheck[] = [
        { name: 'reconciled', check: () => this.execution?.readiness.check() ?? { ok: false, reason: 'starting' } },
        { name: 'exchange', check: () => this.checkExchange() },
      ];
      if (c.redis.url !== undefined) readiness.push({ name: 'redis', check: async () => (this.redis ? (await checkRedisHealth(this.redis)).ok : false) });
      this.metricsServer = await startMetricsServer({
        registry: this.input.registry, port: c.metrics.port, host: c.metrics.host, readiness,
        liveness: () => true, logger: componentLogger(log, 'metrics-server'),
      });
      this.closers.push({ name: 'metrics server', close: () => this.metricsServer!.close() });
    }

    // 2. credentials and state: Redis when configured (required live), else the in-process store
    let credentials: { apiKey: string; apiSecret: string } | undefined;
    if (c.mode === 'live') {
      const creds = loadCredentials(this.input.env, { required: true })!;
      credentials = { apiKey: creds.apiKey, apiSecret: creds.apiSecret.reveal() };
    }
    const keys = StoreKeys.forApiKey(credentials?.apiKey ?? PAPER_API_KEY, c.redis.keyPrefix);
    const state = await this.connectState(keys);

    // 3. the exchange: embedded simulator in paper mode
    let baseUrl = c.exchange.baseUrl;
    if (c.mode === 'paper') {
      this.paper = await startPaperExchange(c, this.input.baseDir);
      const paper = this.paper;
      this.closers.push({ name: 'paper exchange', close: () => paper.sim.close() });
      credentials = paper.credentials;
      baseUrl = paper.sim.url;
      this.marketClock = new ScaledMarketClock(paper.sim.clock);
      log.info({ url: baseUrl, speed: c.paper?.speed, markets: c.paper?.markets.map((x) => x.market) }, 'paper mode: embedded simulated exchange started (market clock frozen until warm-up is done)');
    }
    const exchange = createExchangeClient(c, {
      baseUrl, credentials: credentials!, nonces: state.nonces, limiter: state.limiter, clock: this.wallClock, metrics: m,
      log: componentLogger(log, 'exchange'),
    });

    this.exchange = exchange;
    this.limiter = state.limiter;

    // 4. clock offset (nonces follow the exchange's clock)
    const offset = await syncClockOffset(exchange, this.wallClock, state.nonces);
    log.info({ offsetMs: offset.offsetMs, roundTripMs: offset.roundTripMs }, 'clock offset measured');

    // 5. strategies (pure: files are read and validated; a bad module is reported, the others run)
    const loaded = loadConfiguredStrategies(c, this.input.baseDir);
    for (const error of loaded.errors) log.error({ file: error.context['file'], reason: error.context['reason'], err: error }, `strategy not loaded: ${error.message}`);
    if (loaded.strategies.length === 0) {
      throw new ConfigError(`no enabled strategy could be loaded from ${loaded.dir}; see the errors above`, { path: 'strategies.enabled' });
    }
    const markets = [...new Set(loaded.strategies.flatMap((s) => s.markets))];

    // 6. risk, journal view, executor
    const riskEngine = new RiskEngine({
      limits: riskLimitsFromConfig(c.risk), clock: this.marketClock, initialState: c.risk.initialState,
      onStateChange: (next) => setTradingState(m, next),
    });
    setTradingState(m, riskEngine.tradingState);
    const balances = new BalancePoller({
      client: exchange, clock: this.marketClock,
      onUpdate: (snap) => this.recordBalances(snap.balances, markets),
    });
    const book = new OpenOrderBook(state.orders, (counts) => {
      m.openOrders.reset();
      for (const x of counts) m.openOrders.set({ strategy: x.strategy, market: x.market }, x.count);
    });
    const store = new MeteredOrderStore(state.orders, {
      onTransition: (record, from, to) => m.orderTransitions.inc({ from, to }),
      onStoreHealth: (up) => this.setRedisUp(up),
    });
    let flow: CandleFlow | undefined;
    const execLog = componentLogger(log, 'executor');
    const pnl = new PnlTracker(new Decimal(c.risk.feeMargin), (amount, record) => {
      riskEngine.recordRealizedPnl({ amount });
      execLog.info({ market: record.market, realized: amount.toString(), today: riskEngine.realizedPnlToday().toString() }, 'realised PnL');
    });
    const events = executionEventSink(m, execLog, {
      wallClock: this.wallClock,
      onFill: (id) => { void store.get(id).then((r) => { if (r) pnl.onFill(r); }).catch(() => undefined); },
    });
    const exec = buildExecution({
      config: c, exchange, store, leaseStore: state.leases, events, clock: this.wallClock, markets, metrics: m,
      risk: new RiskGate(riskEngine, {
        lastPrice: (mk) => flow?.lastPrice(mk), balances: () => balances.latest()?.balances ?? {}, openOnMarket: (mk) => book.onMarket(mk),
      }),
      balances: { available: (cur, wallet) => (wallet === 'trading' ? balances.latest()?.balances[cur]?.available : undefined) },
    });
    this.execution = exec;
    this.tradingControl = new TradingStateControl(riskEngine, state.tradingState, componentLogger(log, 'trading-state'));
    await this.tradingControl.init(c.risk.initialState);

    // 7. markets: every strategy market must be listed and trading
    await exec.catalog.refresh();
    for (const market of markets) {
      if ((await exec.catalog.get(market)) === undefined) log.error({ market }, 'market not listed or not trading at the exchange: its intents will be denied');
    }

    // 8. leases, then the first reconciliation: nothing is submitted before it succeeds
    for (const s of loaded.strategies) for (const mk of s.markets) exec.leases.want(s.name, mk);
    await exec.leases.tick();
    await this.firstReconciliation(exec, signal);
    await book.refresh();
    await exec.settler.settlePending({ resendWithinMs: 60_000, resend: (r) => exec.executor.resendPending(r).catch((err: unknown) => execLog.warn({ err, clientOrderId: r.clientOrderId }, 'pending order not resent')) });

    // 9. strategies on the candle flow, warm-up
    const host = new StrategyHost({
      strategies: loaded.strategies, clock: this.marketClock, logger: componentLogger(log, 'strategy'),
      timeBudgetMs: c.strategies.timeBudgetMs, maxConsecutiveFailures: c.strategies.maxConsecutiveFailures,
      view: {
        balances: () => balances.latest()?.balances ?? {},
        openOrders: (strategy, market) => book.of(strategy, market),
        marketInfo: (market) => exec.catalog.cached(market),
      },
      events: {
        onError: (e) => m.strategyErrors.inc({ strategy: e.strategy }),
        onOverrun: (e) => m.strategyOverruns.inc({ strategy: e.strategy }),
        onDuration: (e) => m.strategyDuration.observe({ strategy: e.strategy }, e.elapsedMs / 1000),
        onPaused: (e) => log.error({ strategy: e.strategy, consecutiveFailures: e.consecutiveFailures }, 'strategy paused after repeated failures'),
        onIntents: (e) => log.debug({ strategy: e.strategy, market: e.market, candleTime: e.candleTime, intents: e.intents.length }, 'intents'),
      },
    });
    flow = new CandleFlow({
      host, client: exchange, clock: this.marketClock, log: componentLogger(log, 'candles'), klineDelayMs: c.polling.klineDelayMs,
      sink: this.intentSink(exec, book, execLog),
      warmupFor: (market, interval) => Math.max(1, ...loaded.strategies.filter((s) => s.interval === interval && s.markets.includes(market)).map((s) => s.warmup)),
      hooks: {
        onCandle: (market, interval, close) => recordCandleClose(m, market, interval, close),
        onStaleIntents: (intents) => { for (const i of intents) m.intents.inc({ strategy: i.strategy, result: 'denied', rule: 'stale_candle' }); },
      },
    });
    this.paper?.skipWarmup(warmupSeconds(loaded.strategies, intervalSeconds));
    await balances.poll().catch((err: unknown) => log.warn({ err }, 'first balance poll failed'));
    await flow.warmUp(signal);
    log.info({ strategies: loaded.strategies.map((s) => ({ name: s.name, markets: s.markets, interval: s.interval })) }, 'strategies running');

    // 10. schedulers: market time (klines, balances, kill-switch) and wall time (reconcile, leases, control)
    this.paper?.run();
    this.scheduleJobs(exec, flow, balances, book, exchange);
    if (signal.aborted) throw new NotReadyError('shutdown requested during start-up', {});
    log.info({ mode: c.mode, durable: state.durable, metrics: this.metricsServer?.url }, 'tradebot started');
  }

  private async connectState(keys: StoreKeys): Promise<StateAdapters> {
    const c = this.input.config;
    const util = c.exchange.limitUtilisation;
    if (c.redis.url === undefined) {
      this.log.warn({}, 'no Redis configured (TRADEBOT_REDIS_URL): order journal, leases and nonces live in process memory; state is NOT durable and is lost when the process stops');
      return memoryAdapters(keys, this.wallClock, util);
    }
    const redisLog = componentLogger(this.log, 'redis');
    const redis = createRedis(c.redis.url, {
      lazyConnect: true, connectionName: 'tradebot-daemon',
      onError: (err) => { this.setRedisUp(false); redisLog.warn({ err: err.message }, 'Redis connection error'); },
    });
    this.redis = redis;
    this.closers.push({ name: 'redis', close: () => redis.quit().catch(() => redis.disconnect()) });
    await connectRedis(redis, 5000);
    this.setRedisUp(true);
    redisLog.info({ prefix: keys.prefix, account: keys.account }, 'Redis connected');
    return redisAdapters(redis, keys, this.wallClock, util);
  }

  private async firstReconciliation(exec: Execution, signal: AbortSignal): Promise<void> {
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        const summary = await exec.reconciler.runOnce();
        this.log.info({ checked: summary.checked, discrepancies: summary.discrepancies }, 'startup reconciliation done: submitting allowed');
        return;
      } catch (err) {
        this.log.error({ err, attempt }, 'startup reconciliation failed; retrying (nothing is submitted until it succeeds)');
        await new Promise((r) => setTimeout(r, Math.min(10_000, 1000 * attempt)));
      }
    }
    throw new NotReadyError('shutdown requested before the first reconciliation succeeded', {});
  }

  private intentSink(exec: Execution, book: OpenOrderBook, log: Logger): IntentSink {
    const m = this.metrics;
    let lastRefreshMs = 0;
    return {
      submit: async (intents) => {
        for (const stamped of intents) {
          try {
            const result = await exec.executor.submit(stamped);
            if (result.outcome !== 'denied') {
              m.intents.inc({ strategy: stamped.strategy, result: 'accepted', rule: 'none' });
              book.note(result.records);
            }
          } catch (err) {
            m.intents.inc({ strategy: stamped.strategy, result: 'denied', rule: err instanceof NotReadyError ? 'not_ready' : 'error' });
            log.error({ err, strategy: stamped.strategy, market: stamped.intent.market }, 'intent not executed');
          }
        }
        // A full re-read of the live orders costs a Redis round trip plus one read per live order
        // (O(live) in process too): at most once a second here (note() keeps the view exact for our
        // own submissions meanwhile), and after every reconciliation pass.
        if (this.wallClock.nowMs() - lastRefreshMs >= 1000) {
          lastRefreshMs = this.wallClock.nowMs();
          await book.refresh().catch((err: unknown) => log.warn({ err }, 'open-order view not refreshed'));
        }
      },
    };
  }

  private scheduleJobs(exec: Execution, flow: CandleFlow, balances: BalancePoller, book: OpenOrderBook, exchange: ExchangeClient): void {
    const c = this.input.config;
    const m = this.metrics;
    const schedLog = componentLogger(this.log, 'scheduler');
    const events: JobEvents = {
      onSuccess: (e) => m.pollLastSuccess.set({ job: e.job }, this.wallClock.nowMs() / 1000),
      onError: (e) => m.pollFailures.inc({ job: e.job }),
    };
    const market = createJobScheduler({ clock: this.marketClock, log: schedLog, events });
    const wall = new CronJobScheduler({ log: schedLog, events });
    this.schedulers = [market, wall];
    for (const job of flow.jobs()) market.add(job);
    market.add({ name: 'balances', schedule: { kind: 'every', everyMs: c.polling.balanceIntervalSeconds * 1000 }, run: async () => { await balances.poll(); } });
    const ks = c.killSwitch;
    if (ks.enabled) {
      const killSwitch = new KillSwitchManager({
        exchange, markets: ks.markets.length > 0 ? ks.markets : flow.subscriptions().map((s) => s.market).filter((x, i, a) => a.indexOf(x) === i),
        timeoutSeconds: ks.timeoutSeconds, clock: this.marketClock, log: componentLogger(this.log, 'kill-switch'),
        health: () => this.killSwitchHealth(exec),
        onRefresh: (mk, nowMs, timeout) => recordKillSwitchRefresh(m, mk, nowMs, timeout),
      });
      market.add({ name: 'kill-switch', schedule: { kind: 'every', everyMs: ks.refreshSeconds * 1000 }, run: async () => { await killSwitch.refresh(); } });
      void killSwitch.refresh();
    }
    wall.add({ name: 'reconcile', schedule: { kind: 'every', everyMs: c.reconcile.intervalSeconds * 1000 }, run: async () => { await exec.reconciler.runOnce(); await book.refresh(); } });
    wall.add({ name: 'leases', schedule: { kind: 'every', everyMs: 3000 }, run: () => exec.leases.tick() });
    wall.add({ name: 'trading-state', schedule: { kind: 'every', everyMs: 1000 }, run: () => this.tradingControl!.sync() });
    if (this.redis !== undefined) {
      const redis = this.redis;
      wall.add({ name: 'redis-health', schedule: { kind: 'every', everyMs: 5000 }, run: async () => { this.setRedisUp((await checkRedisHealth(redis)).ok); } });
    }
    // Read on a timer, not per request: with the Redis bucket each read is a round trip.
    const limiter = this.limiter;
    if (limiter !== undefined) {
      wall.add({
        name: 'limiter-tokens', schedule: { kind: 'every', everyMs: 5000 },
        run: async () => { for (const limit of LIMIT_IDS) m.limiterAvailableTokens.set({ limit }, await limiter.available(limit)); },
      });
    }
    market.start();
    wall.start();
  }

  /**
   * Readiness: the exchange answers ping. Cached for 5 s so frequent probes do not spend the
   * exchange's request budget.
   */
  private async checkExchange(): Promise<CheckResult> {
    const exchange = this.exchange;
    if (exchange === undefined) return { ok: false, reason: 'starting' };
    const now = this.wallClock.nowMs();
    if (this.lastExchangeCheck !== undefined && now - this.lastExchangeCheck.atMs < 5000) return this.lastExchangeCheck.result;
    let result: CheckResult;
    try {
      result = (await exchange.ping()) ? { ok: true } : { ok: false, reason: 'ping answered without pong' };
    } catch (err) {
      result = { ok: false, reason: err instanceof TradebotError ? err.code : 'unreachable' };
    }
    this.lastExchangeCheck = { atMs: now, result };
    return result;
  }

  private killSwitchHealth(exec: Execution): string | undefined {
    if (this.stopping) return 'stopping';
    if (this.tradingControl?.state === 'halted') return 'trading halted';
    if (!this.redisUp) return 'Redis unavailable';
    if (!exec.readiness.isReady()) return exec.readiness.reason() ?? 'not ready';
    return undefined;
  }

  private setRedisUp(up: boolean): void {
    if (this.input.config.redis.url === undefined) return;
    this.redisUp = up;
    this.metrics.redisUp.set(up ? 1 : 0);
  }

  private recordBalances(balances: Balances, markets: readonly MarketName[]): void {
    const currencies = new Set(markets.flatMap((mk) => mk.split('_')));
    for (const currency of currencies) {
      const b = balances[currency];
      if (b === undefined) continue;
      this.metrics.balance.set({ currency, kind: 'available' }, b.available.toNumber());
      this.metrics.balance.set({ currency, kind: 'freeze' }, b.freeze.toNumber());
    }
  }

  /**
   * Graceful stop within `graceMs`: stop scheduling, let in-flight submissions finish, release leases,
   * then close connections in reverse start order. Resolves true when everything finished in time.
   */
  async stop(graceMs: number): Promise<boolean> {
    this.stopping = true;
    const deadline = Date.now() + graceMs;
    const left = (): number => Math.max(0, deadline - Date.now());
    let clean = true;
    this.execution?.readiness.markStopping();
    const pending = await Promise.all(this.schedulers.map((s) => s.stop(left())));
    const stuck = pending.flatMap((p) => p.pending);
    if (stuck.length > 0) {
      clean = false;
      this.log.warn({ jobs: stuck }, 'jobs still running at shutdown');
    }
    if (this.execution !== undefined) {
      const drained = await this.execution.executor.drain(left());
      if (!drained) {
        clean = false;
        this.log.error({ inFlight: this.execution.executor.inFlightCount }, 'in-flight submissions did not finish within the grace delay');
      } else {
        this.log.info({}, 'in-flight submissions drained');
      }
      await Promise.race([this.execution.leases.releaseAll(), sleep(left())]).catch(() => undefined);
    }
    for (const closer of [...this.closers].reverse()) {
      try {
        await Promise.race([closer.close(), sleep(left())]);
      } catch (err) {
        this.log.warn({ err, component: closer.name }, 'close failed');
      }
    }
    return clean && Date.now() <= deadline;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => { setTimeout(resolve, ms).unref(); });
}

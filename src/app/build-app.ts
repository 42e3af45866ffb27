import { setTimeout as delay } from 'node:timers/promises';
import { usesRedis } from '../config/redis-target';
import type { RedisConnection } from '../store/redis';
import { SystemClock, type MarketClock } from '../core/clock';
import { DaemonEventBus } from '../domain/daemon-event';
import type { Decimal } from '../domain/decimal';
import type { Portfolio } from '../portfolio/portfolio';
import { NotReadyError } from '../domain/errors';
import { componentLogger } from '../log/logger';
import { ExchangeProbe } from '../metrics/exchange-probe';
import { createMetrics, setReadinessSource } from '../metrics/registry';
import { evaluateReadiness, startMetricsServer, type MetricsServer, type ReadinessCheck } from '../metrics/server';
import { checkRedisHealth } from '../store/redis';
import type { CandleFlow } from '../strategy/candle-flow';
import type { TradingStateControl } from '../trading-state/trading-state-control';
import type { AppInput, DaemonContext } from './daemon-context';
import { startConsole } from './console-wiring';
import { openVenue } from './exchange-wiring';
import { startNotifications } from './notify-wiring';
import type { Execution } from './execution-wiring';
import { startKillSwitch, startSchedulers } from './jobs-wiring';
import { openState } from './state-wiring';
import { startStrategyRuntime } from './strategy-runtime-wiring';
import { loadStrategies } from './strategy-wiring';
import type { MarketStreams } from './stream-wiring';
import { openTrading, reconcileBeforeTrading, wireTrading } from './trading-wiring';

/**
 * THE composition root: the daemon's parts, each wired in its own file, started in this order
 *   observability (metrics server, /readyz) -> state (Redis or in-process) -> venue (exchange, clock)
 *   -> strategies loaded -> trading (reconciled first, then the kill-switch) -> strategy runtime
 *   (guests, warm-up) -> schedulers (market streams, jobs)
 * and stopped in reverse (stop()). Nothing is submitted before the first reconciliation succeeded.
 */
export class TradebotApp {
  tradingControl: TradingStateControl | undefined;
  private readonly ctx: DaemonContext;
  private marketClock: MarketClock = new SystemClock();
  private readonly exchangeProbe: ExchangeProbe;
  private redis: RedisConnection | undefined;
  private redisUp = true;
  private execution: Execution | undefined;
  /** The checks behind /readyz, also what the console reports of this replica. */
  private readiness: ReadinessCheck[] = [];
  private stopping = false;
  private fatal: (error: Error) => void = (error) => this.ctx.log.fatal({ err: error }, 'fatal: a part of the daemon cannot go on');

  constructor(private readonly input: AppInput) {
    const wallClock = new SystemClock();
    const marketNow = { nowMs: () => this.marketClock.nowMs() };
    const metrics = createMetrics(input.registry, {
      clock: marketNow, wallClock, redis: usesRedis(input.config), ...(input.version === undefined ? {} : { version: input.version }),
    });
    this.exchangeProbe = new ExchangeProbe(wallClock);
    this.ctx = {
      ...input, log: input.logger, metrics, wallClock, marketNow, onRedisUp: (up) => this.setRedisUp(up), closers: [], schedulers: [], fail: (error) => this.fatal(error), events: new DaemonEventBus(),
    };
  }

  /** Who hears a part that cannot go on (the supervisor ends the process with 1). */
  onFatal(handler: (error: Error) => void): void {
    this.fatal = handler;
  }

  /** Runs the start sequence; resolves once the scheduler runs. `signal` aborts waiting steps (shutdown during start). */
  async start(signal: AbortSignal): Promise<void> {
    const ctx = this.ctx;
    const metricsServer = await this.startObservability();
    const opened = await openState(ctx, signal);
    this.redis = opened.redis;
    // The daily summary reads today's realised PnL once trading is wired (until then it says "unavailable").
    let portfolio: Portfolio | undefined;
    startNotifications(ctx, opened.redis, opened.state.keys, () => (portfolio === undefined ? undefined : { realizedPnl: portfolio.realizedToday().toString() }));
    const venue = await openVenue(ctx, opened);
    this.marketClock = venue.marketClock;
    this.exchangeProbe.attach(venue.exchange);
    const loaded = await loadStrategies(ctx);
    const { strategies } = loaded;
    // The risk price band reads the candle flow and the market streams, started later.
    let flow: CandleFlow | undefined;
    let marketStreams: MarketStreams | undefined;
    const lastPrice = (mk: string): Decimal | undefined => marketStreams?.lastPrice(mk) ?? flow?.lastPrice(mk);
    const trading = await wireTrading(ctx, venue, strategies, lastPrice);
    this.execution = trading.exec;
    portfolio = trading.portfolio;
    this.tradingControl = trading.tradingControl;
    await reconcileBeforeTrading(ctx, venue, strategies, trading, signal);
    // Re-armed from here on: a restart within the timeout keeps the orders.
    startKillSwitch(ctx, venue, strategies, () => this.killSwitchHealth(trading.exec));
    const accountStream = await openTrading(ctx, venue, strategies, trading);
    const runtime = await startStrategyRuntime(ctx, venue, loaded, trading, signal, {
      account: accountStream, marketTriggers: (mk, iv) => marketStreams?.triggers(mk, iv) === true,
    });
    flow = runtime.flow;
    marketStreams = await startSchedulers(ctx, venue, loaded, trading, runtime, accountStream);
    const consoleUrl = await startConsole(ctx, venue, strategies, trading, lastPrice, this.input.version ?? '0.0.0', () => evaluateReadiness(this.readiness, 2000));
    if (signal.aborted) throw new NotReadyError('shutdown requested during start-up', {});
    ctx.log.info({ durable: opened.state.durable, metrics: metricsServer?.url, console: consoleUrl }, 'tradebot started'); // `mode` is on every line
  }

  /** First, so a stuck start-up is visible on /readyz. */
  private async startObservability(): Promise<MetricsServer | undefined> {
    const { config: c, log, metrics } = this.ctx;
    const readiness: ReadinessCheck[] = [
      { name: 'reconciled', check: () => this.execution?.readiness.check() ?? { ok: false, reason: 'starting' } },
      { name: 'exchange', check: () => this.exchangeProbe.check() },
      ...(!usesRedis(c) ? [] : [{
        name: 'redis', check: async () => (this.redis !== undefined && (await checkRedisHealth(this.redis)).ok ? { ok: true } : { ok: false, reason: 'TB_ERR_STORE_UNAVAILABLE' }),
      }]),
    ];
    this.readiness = readiness;
    setReadinessSource(metrics, async () => {
      const report = await evaluateReadiness(readiness, 2000);
      return Object.fromEntries(Object.entries(report.checks).map(([name, r]) => [name, r.ok]));
    });
    if (!c.metrics.enabled) return undefined;
    const server = await startMetricsServer({
      registry: this.input.registry, port: c.metrics.port, host: c.metrics.host, readiness, liveness: () => true, logger: componentLogger(log, 'metrics-server'),
    });
    this.ctx.closers.push({ name: 'metrics server', close: () => server.close() });
    return server;
  }

  /**
   * The kill-switch is a dead man's switch for a dead or unhealthy daemon. "halted" is an operator's
   * decision to send no NEW orders: a healthy halted daemon keeps re-arming, so the exchange does not
   * cancel the protective stops it still has resting.
   */
  private killSwitchHealth(exec: Execution): string | undefined {
    if (this.stopping) return 'stopping';
    if (!this.redisUp) return 'Redis unavailable';
    if (!exec.readiness.isReady()) return exec.readiness.reason() ?? 'not ready';
    return undefined;
  }

  private setRedisUp(up: boolean): void {
    if (!usesRedis(this.input.config)) return;
    this.redisUp = up;
    this.ctx.metrics.redisUp.set(up ? 1 : 0);
  }

  /**
   * Graceful stop within `graceMs`: stop scheduling, let in-flight submissions finish, release leases,
   * then close connections in reverse start order. Resolves true when everything finished in time.
   */
  async stop(graceMs: number): Promise<boolean> {
    const { log, schedulers, closers, wallClock } = this.ctx;
    this.stopping = true;
    const deadline = wallClock.nowMs() + graceMs;
    const left = (): number => Math.max(0, deadline - wallClock.nowMs());
    this.execution?.readiness.markStopping();
    const stuck = (await Promise.all(schedulers.map((s) => s.stop(left())))).flatMap((p) => p.pending);
    let clean = stuck.length === 0;
    if (!clean) log.warn({ jobs: stuck }, 'jobs still running at shutdown');
    const exec = this.execution;
    if (exec !== undefined) {
      const drained = await exec.executor.drain(left());
      if (drained) log.info({}, 'in-flight submissions drained');
      else log.error({ inFlight: exec.executor.inFlightCount }, 'in-flight submissions did not finish within the grace delay');
      clean &&= drained;
      await Promise.race([exec.leases.releaseAll(), delay(left(), undefined, { ref: false })]).catch(() => undefined);
    }
    for (const closer of [...closers].reverse()) {
      try {
        await Promise.race([closer.close(), delay(left(), undefined, { ref: false })]);
      } catch (err) {
        log.warn({ err, closing: closer.name }, 'close failed');
      }
    }
    return clean && wallClock.nowMs() <= deadline;
  }
}

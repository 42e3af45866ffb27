import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { SystemClock, type Clock, type MarketClock } from '../core/clock';
import { loadCredentials } from '../config/credentials';
import type { FrozenConfig } from '../config/load';
import { intervalSeconds } from '../domain/candle';
import { ConfigError, NotReadyError } from '../domain/errors';
import type { ClockSync } from '../exchange/clock-offset';
import { measureExchangeClock, repairPoisonedNonce } from '../execution/guards/clock-guard';
import { componentLogger, type Logger } from '../log/logger';
import { createMetrics, recordStore, setReadinessSource, type Metrics } from '../metrics/registry';
import { evaluateReadiness, startMetricsServer, type MetricsServer, type ReadinessCheck } from '../metrics/server';
import { checkRedisHealth } from '../store/redis';
import { RemoteSimClock } from '../simulator/remote-sim-clock';
import type { CandleFlow } from '../strategy/candle-flow';
import { createExchangeClient } from './exchange-wiring';
import { ExchangeProbe } from '../metrics/exchange-probe';
import type { Execution } from './execution-wiring';
import { executorSink } from '../execution/orders/intent-sink';
import { DeploymentRecorder } from '../drift/deployment-recorder';
import { PeriodicDriftCheck, type PeriodicDriftCheckOptions } from '../drift/periodic-drift-check';
import { runDriftInGuests } from '../drift/drift-in-guests';
import { driftSpecOf } from '../drift/drift-spec';
import { startJobs, startKillSwitch } from './jobs-wiring';
import { startPaperExchange, type PaperExchange } from './paper-exchange';
import { accountKeys } from './account-store';
import { preparePaperNamespace } from './paper-fresh-start';
import type { JobScheduler } from '../jobs/scheduler';
import { openState } from './state-wiring';
import { wireStrategyRuntime } from './strategy-runtime-wiring';
import { describeConfiguredStrategies, strategyConfigErrors, warmupSeconds } from './strategy-wiring';
import { guestIsolationMinimum, guestIsolationOf } from './guest-isolation';
import { checkStrategyMarkets, unlistedMarketsError } from './market-check';
import type { TradingStateControl } from '../trading-state/trading-state-control';
import { wireTrading } from './trading-wiring';
import { openOnMarkets, prepareVersions, statusPublisher, versionEvents, wireVersionControl, type WiredControl } from './strategy-versions-wiring';
import type { VersionedHost } from '../strategy/versions/versioned-host';
import { startAccountStream, startMarketStreams, usesAccountStream, usesMarketStream, type AccountStream, type MarketStreams } from './stream-wiring';

export interface AppInput {
  readonly config: FrozenConfig;
  /** Relative paths of the config (candle files, strategy dir) resolve against it. */
  readonly baseDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Injected, never prom-client's global registry. */
  readonly registry: Registry;
  readonly version?: string;
  /** The config file (re-read by `tradebot reload`; the daemon ignores SIGHUP). */
  readonly configFile?: string | undefined;
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
 * What each step wires lives in its own file (state-, trading-, strategy-runtime-, jobs-wiring).
 */
export class TradebotApp {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly wallClock: Clock = new SystemClock();
  metricsServer: MetricsServer | undefined;
  paper: PaperExchange | undefined;
  tradingControl: TradingStateControl | undefined;
  private marketClock: MarketClock = new SystemClock();
  /** The market clock as parts built before the exchange (metrics, the journal) read it: whichever it is by then. */
  private readonly marketNow: Clock = { nowMs: () => this.marketClock.nowMs() };
  private readonly closers: Closer[] = [];
  private readonly exchangeProbe = new ExchangeProbe(this.wallClock);
  private redisUp = true;
  private schedulers: JobScheduler[] = [];
  private execution: Execution | undefined;
  private stopping = false;

  constructor(private readonly input: AppInput) {
    this.log = input.logger;
    const c = input.config;
    this.metrics = createMetrics(input.registry, {
      clock: this.marketNow, wallClock: this.wallClock, redis: c.redis.url !== undefined,
      ...(input.version === undefined ? {} : { version: input.version }),
    });
  }

  /** Runs the start sequence; resolves once the scheduler runs. `signal` aborts waiting steps (shutdown during start). */
  async start(signal: AbortSignal): Promise<void> {
    const c = this.input.config;
    const log = this.log;
    const m = this.metrics;
    const onRedisUp = (up: boolean): void => this.setRedisUp(up);

    // 1. metrics server (first, so a stuck start-up is visible on /readyz)
    const readiness: ReadinessCheck[] = [
      { name: 'reconciled', check: () => this.execution?.readiness.check() ?? { ok: false, reason: 'starting' } },
      { name: 'exchange', check: () => this.exchangeProbe.check() },
    ];
    let redis: Redis | undefined;
    if (c.redis.url !== undefined) {
      readiness.push({
        name: 'redis',
        check: async () => (redis !== undefined && (await checkRedisHealth(redis)).ok ? { ok: true } : { ok: false, reason: 'TB_ERR_STORE_UNAVAILABLE' }),
      });
    }
    setReadinessSource(m, async () => {
      const report = await evaluateReadiness(readiness, 2000);
      return Object.fromEntries(Object.entries(report.checks).map(([name, r]) => [name, r.ok]));
    });
    await this.startMetricsServer(readiness);

    // 2. credentials and state: Redis when configured (required live), else the in-process store
    let credentials: { apiKey: string; apiSecret: string } | undefined;
    const remoteSim = c.mode === 'paper' ? c.paper?.exchangeUrl : undefined;
    if (c.mode === 'live' || remoteSim !== undefined) {
      const creds = loadCredentials(this.input.env, { required: true })!;
      credentials = { apiKey: creds.apiKey, apiSecret: creds.apiSecret.reveal() };
    }
    // The one derivation the CLI commands use too (account-store.ts): paper keys never meet live ones.
    const keys = accountKeys(c, this.input.env);
    const opened = await openState(c, keys, { wall: this.wallClock, market: this.marketNow }, log, onRedisUp, this.input.baseDir);
    const state = opened.adapters;
    redis = opened.redis;
    recordStore(m, redis === undefined ? 'memory' : 'redis', keys.account);
    if (redis !== undefined) {
      const connection = redis;
      this.closers.push({ name: 'redis', close: () => connection.quit().catch(() => connection.disconnect()) });
    }

    // 3. the exchange: embedded simulator in paper mode
    let baseUrl = c.exchange.baseUrl;
    let streamUrl = c.exchange.websocket.url;
    if (remoteSim !== undefined) {
      // A running sim-exchange: it keeps orders and balances across our restarts; its clock is read from it.
      const clock = await RemoteSimClock.connect(remoteSim, this.wallClock);
      this.closers.push({ name: 'simulator clock', close: async () => clock.stop() });
      baseUrl = remoteSim;
      streamUrl = simStreamUrl(remoteSim);
      this.marketClock = clock;
      log.info({ url: baseUrl, speed: clock.speed, marketTime: new Date(clock.nowMs()).toISOString() }, 'paper mode: running simulated exchange (market clock read from it)');
    } else if (c.mode === 'paper') {
      this.paper = await startPaperExchange(c, this.input.baseDir);
      const paper = this.paper;
      this.closers.push({ name: 'paper exchange', close: () => paper.sim.close() });
      credentials = paper.credentials;
      baseUrl = paper.sim.url;
      // Paper mode trades with the simulator's WebSocket twin (exchange.streams decides which streams).
      streamUrl = paper.sim.wsUrl;
      this.marketClock = paper.sim.clock;
      log.info({ url: baseUrl, speed: c.paper?.speed, markets: c.paper?.markets?.map((x) => x.market) }, 'paper mode: embedded simulated exchange started (market clock frozen until warm-up is done)');
    }
    // A paper run on another market timeline than the state under its namespace starts clean (or says what it carries over), before anything reads it.
    await preparePaperNamespace({ config: c, redis, keys, marketClock: this.marketClock, log });
    // Plain http: is allowed only on loopback, i.e. a simulator: its WebSocket twin, never the venue's host.
    if (new URL(baseUrl).protocol === 'http:') streamUrl = simStreamUrl(baseUrl);
    // A refused nonce re-measures the clock before its one retry; a clock found too far off halts trading.
    let onNonceRefused: () => Promise<void> = async () => undefined;
    const exchange = createExchangeClient(c, {
      baseUrl, credentials: credentials!, nonces: state.nonces, limiter: state.limiter, clock: this.wallClock, metrics: m,
      log: componentLogger(log, 'exchange'), resyncClock: () => onNonceRefused(),
    });
    this.exchangeProbe.attach(exchange);

    // 4. clock offset (nonces follow the exchange's clock, within +-60 s) and the stored nonce's sanity
    const clockInput = { exchange, wallClock: this.wallClock, nonces: state.nonces, metrics: m, log };
    const clock = await measureExchangeClock(clockInput);
    await repairPoisonedNonce(state.nonces, credentials!.apiKey, log);

    // 5. strategies: each module loaded and validated in a throwaway guest (metadata back, no module
    //    code in this process); a bad module is reported, the others run
    const isolation = guestIsolationOf(c);
    m.guestIsolationInfo.set({ level: isolation }, 1);
    log.info({ isolation, minimum: guestIsolationMinimum(c) }, `strategy guests isolated at level "${isolation}" (docs/security.md)`);
    const loaded = await describeConfiguredStrategies(c, this.input.baseDir);
    for (const error of loaded.errors) log.error({ file: error.context['file'], reason: error.context['reason'], err: error }, `strategy not loaded: ${error.message}`);
    const configErrors = strategyConfigErrors(loaded.errors);
    if (configErrors.length > 0) {
      throw new ConfigError(`strategies.enabled: ${configErrors.map((e) => e.message).join('; ')}`, { path: 'strategies.enabled' });
    }
    if (loaded.strategies.length === 0) {
      throw new ConfigError(`no enabled strategy could be loaded from ${loaded.dir}; see the errors above`, { path: 'strategies.enabled' });
    }
    const markets = [...new Set(loaded.strategies.flatMap((s) => s.markets))];

    // 6. risk, journal view, executor, trading state
    let flow: CandleFlow | undefined;
    let marketStreams: MarketStreams | undefined;
    let accountStream: AccountStream | undefined;
    const trading = await wireTrading({
      config: c, exchange, state, markets, marketClock: this.marketClock, wallClock: this.wallClock, metrics: m, log,
      strategies: loaded.strategies.map((s) => ({ name: s.name, markets: s.markets })),
      lastPrice: (mk) => marketStreams?.lastPrice(mk) ?? flow?.lastPrice(mk), onRedisUp,
    });
    const { exec, book, balances, execLog } = trading;
    this.execution = exec;
    this.tradingControl = trading.tradingControl;
    const control = trading.tradingControl;
    const haltOnClock = async (sync: ClockSync): Promise<void> => {
      if (sync.status !== 'too_far') return;
      await control.set('halted', `exchange clock ${Math.round(sync.offsetMs / 1000)} s off the local clock (limit ${sync.maxOffsetMs / 1000} s): check NTP`, this.wallClock.nowMs());
    };
    await haltOnClock(clock);
    onNonceRefused = async () => haltOnClock(await measureExchangeClock(clockInput));

    // 7. markets: every strategy market must be listed (else exit 78 naming it, before any trading);
    //    one listed with trading disabled is the venue's passing state: logged, its intents denied
    await exec.catalog.refresh();
    const listed = markets.flatMap((mk) => {
      const info = exec.catalog.cached(mk);
      return info === undefined ? [] : [{ name: info.name, tradesEnabled: info.tradesEnabled }];
    });
    const marketCheck = checkStrategyMarkets(loaded.strategies, listed);
    const venueName = remoteSim !== undefined ? `the simulated exchange at ${remoteSim}` : c.mode === 'paper' ? 'paper.markets' : `the venue at ${baseUrl}`;
    const unlisted = unlistedMarketsError(marketCheck, venueName, c.mode === 'paper' && remoteSim === undefined ? (c.paper?.markets ?? []).map((x) => x.market) : undefined);
    if (unlisted !== undefined) throw unlisted;
    for (const n of marketCheck.notTrading) log.error({ strategy: n.strategy, markets: n.markets }, 'market listed with trading disabled at the exchange: its intents will be denied');

    // 8. leases, then the first reconciliation: nothing is submitted before it succeeds
    for (const s of loaded.strategies) for (const mk of s.markets) exec.leases.want(s.name, mk);
    await exec.leases.tick();
    await this.firstReconciliation(exec, signal);
    // The kill-switch is re-armed from here on (a restart within the timeout keeps the orders).
    const killSwitch = startKillSwitch({
      config: c, exchange, markets, marketClock: this.marketClock, wallClock: this.wallClock, metrics: m, log,
      health: () => this.killSwitchHealth(exec),
    });
    if (killSwitch !== undefined) this.schedulers.push(killSwitch);
    await book.refresh();
    // ctx.position from the journal's fills: a restarted daemon does not tell its strategies they are flat.
    await trading.feedback.idle();
    await state.orders.listAll(JOURNAL_SEED_LIMIT)
      .then((records) => trading.feedback.seed(records.filter((r) => r.filledAmount !== '0')))
      .catch((err: unknown) => log.warn({ err }, 'positions for strategies not read from the journal'));
    // The account stream from here on (the journal is reconciled): fills reach the journal as pushed.
    const streamInput = { config: c, url: streamUrl, exchange, metrics: m, log };
    if (usesAccountStream(c)) {
      accountStream = startAccountStream({
        ...streamInput, markets, exec, store: trading.store, events: trading.events,
        onChange: () => { book.refresh().catch(() => undefined); },
      });
      const started = accountStream;
      this.closers.push({ name: 'account stream', close: async () => started.stop() });
    }
    await exec.settler.settlePending({ resendWithinMs: 60_000, resend: (r) => exec.executor.resendPending(r).catch((err: unknown) => execLog.warn({ err, clientOrderId: r.clientOrderId }, 'pending order not resent')) });

    // 9. strategies on the candle flow (each as versions: live, and a shadow after a reload), warm-up; what they get is recorded for the drift check
    const recorder = c.drift.record ? new DeploymentRecorder({
      log: state.deployment, marketClock: this.marketClock, wallClock: this.wallClock, logger: componentLogger(log, 'drift-record'),
      balances: () => balances.latest()?.balances, collateral: () => trading.collateral.latest()?.balances, heartbeatMs: c.drift.heartbeatSeconds * 1000,
    }) : undefined;
    if (recorder !== undefined) {
      await recorder.start();
      this.closers.push({ name: 'drift record', close: () => recorder.stop() });
    }
    const prepared = await prepareVersions({ config: c, baseDir: this.input.baseDir, loaded, redis, keys, log });
    let versioned: VersionedHost | undefined;
    let wired: WiredControl | undefined;
    const publish = statusPublisher(() => versioned, prepared.store, this.wallClock, log);
    const runtime = wireStrategyRuntime({
      config: c, versions: prepared.live, exchange, trading, marketClock: this.marketClock, metrics: m, log, recorder,
      sink: executorSink(exec.executor, book, m, this.wallClock, execLog, trading.feedback.feedback, recorder === undefined ? undefined : (x, r) => recorder.onDecision(x, r)),
      versionEvents: versionEvents(m, (name, clean) => wired?.control.shadowClean(name, clean), publish, recorder === undefined ? undefined : (name, v) => recorder.onLiveVersion(name, v)),
      onPauseChange: publish,
      beforeCandle: redis === undefined ? undefined : () => wired?.control.sync() ?? Promise.resolve(),
      streams: { account: accountStream, marketTriggers: (mk, iv) => marketStreams?.triggers(mk, iv) === true },
    });
    flow = runtime.flow;
    const guests = runtime.host;
    versioned = guests;
    wired = wireVersionControl({
      config: c, configFile: this.input.configFile, env: this.input.env, baseDir: this.input.baseDir, prepared, host: guests,
      replicated: redis !== undefined, metrics: m, log: componentLogger(log, 'strategy-versions'), wallClock: this.wallClock,
      wantMarkets: (name, mks) => { for (const mk of mks) exec.leases.want(name, mk); },
      openOn: openOnMarkets(book, trading.portfolio),
    });
    this.closers.push({ name: 'strategy threads', close: () => guests.close() });
    await guests.start();
    this.paper?.skipWarmup(warmupSeconds(loaded.strategies, intervalSeconds));
    await balances.poll().catch((err: unknown) => log.warn({ err }, 'first balance poll failed'));
    // OCO margin: an unfunded collateral account shows here, and OCOs are then denied before sending.
    await trading.collateral.poll().catch((err: unknown) => log.warn({ err }, 'first collateral balance poll failed'));
    await flow.warmUp(signal);
    log.info({ strategies: prepared.live.map((v) => ({ name: v.strategy.name, markets: v.strategy.markets, interval: v.strategy.interval, version: v.strategy.version })) }, 'strategies running');
    await wired.startShadows();

    // 10. schedulers: market time (klines, balances, kill-switch) and wall time (reconcile, leases, control);
    //     the market streams trigger each kline fetch at the close (the scheduled poll stays as the fallback)
    this.paper?.run();
    if (usesMarketStream(c)) {
      const candles = flow;
      marketStreams = startMarketStreams({
        ...streamInput, subscriptions: candles.subscriptions(), marketClock: this.marketClock,
        onClosed: (mk, iv, openTime) => { void candles.closed(mk, iv, openTime); },
      });
      const started = marketStreams;
      this.closers.push({ name: 'market streams', close: async () => started.stop() });
    }
    const driftCheck = this.periodicDriftCheck((from, to, stop) => runDriftInGuests(
      driftSpecOf(c, this.input.baseDir, from, to),
      { log: state.deployment, journal: state.orders },
      { strategies: loaded.strategies, isolation: guestIsolationOf(c), lowPriority: true, signal: stop },
    ));
    this.schedulers.push(...startJobs({
      config: c, trading, flow, exchange, limiter: state.limiter, redis, marketClock: this.marketClock, wallClock: this.wallClock,
      metrics: m, log, onRedisUp, wallJobs: [wired.job], ...(accountStream === undefined ? {} : { reconcileNow: accountStream.reconcileNow }),
      driftCheck: driftCheck === undefined ? undefined : () => driftCheck.tick(),
    }));
    if (signal.aborted) throw new NotReadyError('shutdown requested during start-up', {});
    log.info({ durable: state.durable, metrics: this.metricsServer?.url }, 'tradebot started'); // `mode` is on every line
  }

  /** The drift check every drift.intervalMinutes, when configured and possible (it reads the deployment's records). */
  private periodicDriftCheck(run: PeriodicDriftCheckOptions['run']): PeriodicDriftCheck | undefined {
    const c = this.input.config;
    if (c.drift.intervalMinutes === 0) return undefined;
    if (!c.drift.record) {
      this.log.warn({ record: c.drift.record }, 'drift.intervalMinutes is set but the drift check needs drift.record: no periodic check');
      return undefined;
    }
    const check = new PeriodicDriftCheck({
      run, marketClock: this.marketClock, wallClock: this.wallClock,
      windowMinutes: c.drift.windowMinutes, maxUnexplained: c.drift.maxUnexplained, metrics: this.metrics, log: componentLogger(this.log, 'drift-check'),
    });
    this.closers.push({ name: 'drift check', close: async () => check.stop() });
    return check;
  }

  private async startMetricsServer(readiness: readonly ReadinessCheck[]): Promise<void> {
    const c = this.input.config;
    if (!c.metrics.enabled) return;
    this.metricsServer = await startMetricsServer({
      registry: this.input.registry, port: c.metrics.port, host: c.metrics.host, readiness,
      liveness: () => true, logger: componentLogger(this.log, 'metrics-server'),
    });
    const server = this.metricsServer;
    this.closers.push({ name: 'metrics server', close: () => server.close() });
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
    if (this.input.config.redis.url === undefined) return;
    this.redisUp = up;
    this.metrics.redisUp.set(up ? 1 : 0);
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
        this.log.warn({ err, closing: closer.name }, 'close failed');
      }
    }
    return clean && Date.now() <= deadline;
  }
}

/** Journal records read at start-up for the strategies' positions (newest first). */
const JOURNAL_SEED_LIMIT = 10_000;

/** The WebSocket twin of a running `tradebot sim-exchange`: same host and port, path /ws. */
function simStreamUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = '/ws';
  return u.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => { setTimeout(resolve, ms).unref(); });
}

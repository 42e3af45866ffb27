import { SystemClock, type MarketClock } from '../core/clock';
import { loadCredentials } from '../config/credentials';
import type { ClockSync } from '../exchange/clock-offset';
import { HttpExchangeClient, type ClientRequestEvent } from '../exchange/http/client';
import type { EndpointId } from '../exchange/wire/endpoints';
import { measureExchangeClock, repairPoisonedNonce } from '../execution/guards/clock-guard';
import { componentLogger, type Logger } from '../log/logger';
import type { ExchangeOutcome } from '../metrics/definitions';
import { recordExchangeRequest } from '../metrics/exchange-outcome';
import type { Metrics } from '../metrics/registry';
import { MeteredLimiter } from '../limiter/metered-limiter';
import { RemoteSimClock } from '../simulator/remote-sim-clock';
import type { TradingStateControl } from '../trading-state/trading-state-control';
import type { DaemonContext } from './daemon-context';
import { startPaperExchange, type PaperExchange } from './paper-exchange';
import { preparePaperNamespace } from './paper-fresh-start';
import type { OpenedState } from './state-wiring';

/**
 * Maps the error code of a failed attempt to the metric's outcome label: the fallback for an event
 * that carries no error object (a code cannot tell a refused nonce from a 429).
 */
export function outcomeOfCode(code: string): ExchangeOutcome {
  switch (code) {
    case 'ok': return 'ok';
    case 'TB_ERR_RATE_LIMITED': return 'rate_limited';
    case 'TB_ERR_TIMEOUT': return 'timeout';
    case 'TB_ERR_BAD_RESPONSE': return 'bad_response';
    case 'TB_ERR_EXCHANGE_UNAVAILABLE': return 'unavailable';
    case 'TB_ERR_EXCHANGE_REJECTED': case 'TB_ERR_EXCHANGE_VALIDATION': case 'TB_ERR_AUTH': case 'TB_ERR_INSUFFICIENT_FUNDS':
    case 'TB_ERR_ORDER_NOT_FOUND': case 'TB_ERR_DUPLICATE_CLIENT_ORDER_ID': case 'TB_ERR_REQUEST_INVALID':
      return 'rejected';
    default: return 'error';
  }
}

export interface Venue extends OpenedState {
  readonly exchange: HttpExchangeClient;
  /** The exchange's time: the system clock live, the simulator's in paper mode. */
  readonly marketClock: MarketClock;
  /** The embedded simulator (paper mode without paper.exchangeUrl). */
  readonly paper: PaperExchange | undefined;
  /** The venue's WebSocket API, or a simulator's twin. */
  readonly streamUrl: string;
  /** Halts trading through `control` while the exchange's clock is too far off: now, and after each refused nonce (re-measured). */
  guardClock(control: TradingStateControl): Promise<void>;
}

/**
 * The exchange the daemon trades with: the venue, a running sim-exchange (paper.exchangeUrl) or the
 * embedded simulator; its HTTP client with every attempt observed (requests, latency, 429s) and the
 * limiter's waits timed; then the clock offset (nonces follow the exchange's clock, within +-60 s)
 * and the stored nonce's sanity.
 */
export async function openVenue(ctx: DaemonContext, opened: OpenedState): Promise<Venue> {
  const { config: c, log, metrics: m } = ctx;
  const { nonces, limiter, keys } = opened.state;
  const remoteSim = c.mode === 'paper' ? c.paper?.exchangeUrl : undefined;
  let credentials: { apiKey: string; apiSecret: string } | undefined;
  if (c.mode === 'live' || remoteSim !== undefined) {
    const creds = loadCredentials(ctx.env, { required: true })!;
    credentials = { apiKey: creds.apiKey, apiSecret: creds.apiSecret.reveal() };
  }
  let baseUrl = c.exchange.baseUrl;
  let streamUrl = c.exchange.websocket.url;
  let marketClock: MarketClock = new SystemClock();
  let paper: PaperExchange | undefined;
  if (remoteSim !== undefined) {
    // A running sim-exchange: it keeps orders and balances across our restarts; its clock is read from it.
    const clock = await RemoteSimClock.connect(remoteSim, ctx.wallClock);
    ctx.closers.push({ name: 'simulator clock', close: async () => clock.stop() });
    baseUrl = remoteSim;
    streamUrl = simStreamUrl(remoteSim);
    marketClock = clock;
    log.info({ url: baseUrl, speed: clock.speed, marketTime: new Date(clock.nowMs()).toISOString() }, 'paper mode: running simulated exchange (market clock read from it)');
  } else if (c.mode === 'paper') {
    const embedded = await startPaperExchange(c, ctx.baseDir);
    paper = embedded;
    ctx.closers.push({ name: 'paper exchange', close: () => embedded.sim.close() });
    credentials = embedded.credentials;
    baseUrl = embedded.sim.url;
    // Paper mode trades with the simulator's WebSocket twin (exchange.streams decides which streams).
    streamUrl = embedded.sim.wsUrl;
    marketClock = embedded.sim.clock;
    log.info({ url: baseUrl, speed: c.paper?.speed, markets: c.paper?.markets?.map((x) => x.market) }, 'paper mode: embedded simulated exchange started (market clock frozen until warm-up is done)');
  }
  // A paper run on another market timeline than the state under its namespace starts clean (or says what it carries over), before anything reads it.
  await preparePaperNamespace({ config: c, redis: opened.redis, keys, marketClock, log });
  // Plain http: is allowed only on loopback, i.e. a simulator: its WebSocket twin, never the venue's host.
  if (new URL(baseUrl).protocol === 'http:') streamUrl = simStreamUrl(baseUrl);
  const ex = c.exchange;
  // A refused nonce re-measures the clock before its one retry; a clock found too far off halts trading.
  let onNonceRefused: () => Promise<void> = async () => undefined;
  const exchange = new HttpExchangeClient({
    baseUrl, credentials: credentials!, nonceSource: nonces, clock: ctx.wallClock,
    ...(ex.euBaseUrl === undefined || c.mode === 'paper' ? {} : { euBaseUrl: ex.euBaseUrl }),
    primaryRegion: c.mode === 'paper' ? 'global' : ex.primaryRegion,
    limiter: new MeteredLimiter(limiter, (limit, seconds) => m.limiterWait.observe({ limit }, seconds)),
    timeoutMs: ex.timeoutMs, maxResponseBytes: ex.maxResponseBytes, nonceWindow: ex.nonceWindow, dialect: ex.dialect, retry: ex.retry,
    onRequest: requestObserver(m, componentLogger(log, 'exchange')),
    resyncClock: () => onNonceRefused(),
  });
  const clockInput = { exchange, wallClock: ctx.wallClock, nonces, metrics: m, log };
  const sync = await measureExchangeClock(clockInput);
  await repairPoisonedNonce(nonces, credentials!.apiKey, log);
  return {
    ...opened, exchange, marketClock, paper, streamUrl,
    guardClock: async (control) => {
      const haltOnClock = async (s: ClockSync): Promise<void> => {
        if (s.status !== 'too_far') return;
        await control.set('halted', `exchange clock ${Math.round(s.offsetMs / 1000)} s off the local clock (limit ${s.maxOffsetMs / 1000} s): check NTP`, ctx.wallClock.nowMs());
      };
      await haltOnClock(sync);
      onNonceRefused = async () => haltOnClock(await measureExchangeClock(clockInput));
    },
  };
}

/** The WebSocket twin of a running `tradebot sim-exchange`: same host and port, path /ws. */
function simStreamUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = '/ws';
  return u.toString();
}

/**
 * The client's per-attempt hook: request counter by outcome, latency, and the 429 and refused-nonce
 * counters. With the attempt's error object, recordExchangeRequest tells a refused nonce
 * (`nonce_rejected`, tradebot_exchange_nonce_rejections_total) from a rate limit; an event with only
 * an error code falls back to outcomeOfCode.
 */
export function requestObserver(metrics: Metrics, log: Pick<Logger, 'debug'>): (e: ClientRequestEvent) => void {
  return (e) => {
    const endpoint = e.endpoint as EndpointId;
    const seconds = e.durationMs / 1000;
    let outcome: ExchangeOutcome;
    if (e.outcome === 'ok' || e.error !== undefined) {
      outcome = recordExchangeRequest(metrics, endpoint, seconds, e.outcome === 'ok' ? undefined : e.error);
    } else {
      outcome = outcomeOfCode(e.outcome);
      metrics.exchangeRequests.inc({ api_endpoint: endpoint, outcome });
      metrics.exchangeRequestDuration.observe({ api_endpoint: endpoint }, seconds);
      if (outcome === 'rate_limited') metrics.rateLimited.inc({ api_endpoint: endpoint });
    }
    if (outcome !== 'ok') log.debug({ endpoint, outcome, code: e.outcome, attempt: e.attempt, region: e.region, durationMs: e.durationMs }, 'exchange request failed');
  };
}

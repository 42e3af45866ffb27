import { ManualClock, SystemClock, type Clock } from '../core/clock';
import type { MarketInfo, MarketName } from '../domain/market';
import { DEFAULT_DIALECT, DIALECTS, type DialectName } from '../exchange/wire/dialects';
import type { UnknownFieldPolicy } from '../exchange/wire/request-codec';
import { LIMITS, type LimitTable } from '../limiter/limits';
import { loadCsvRows, type CsvCandleRow } from '../candle-files/csv-candles';
import type { FillModel } from '../domain/fill-model';
import { SimEngine, type CollateralMode, type OcoLegIds } from './engine/sim-engine';
import type { AccountFunding, EngineEvent } from './engine/types';
import { MINUTE, RandomWalkSource, RowsCandleSource, type CandleSource } from './market/candle-source';
import { MarketFeed } from './market/market-feed';
import { Faults, type FaultSettings } from './server/faults';
import type { SimRegion } from './server/region';
import { SimHttpServer } from './server/sim-http-server';
import { simMarketInfo } from './sim-markets';
import { DEFAULT_WS_IDLE_TIMEOUT_MS, SimWsServer, WS_PATH } from './ws/sim-ws-server';
import { WsFaults, type WsFaultSettings } from './ws/ws-faults';
import { DEFAULT_TICK_INTERVALS, type WsTickIntervals } from './ws/ws-ticks';
import { DEFAULT_WS_TOKEN_TTL_MS, WsTokens } from './ws/ws-tokens';

/**
 * The simulated exchange in-process: paper mode and tests start it with this, the CLI command wraps it.
 *
 *   const sim = await startSimulatedExchange({ apiKey: 'k', apiSecret: 's', balances: { USDT: '10000' },
 *     markets: [{ name: 'BTC_USDT', csvPath: 'config/data/btc_usdt-1m-sample.csv' }], speed: 0 });
 *   sim.advanceBy(60);            // one market minute: the closed candle is applied to resting orders
 *   sim.faults.enqueue('lostAnswer', { endpoint: 'stopLimit' });
 *   sim.wsUrl;                    // ws://127.0.0.1:<port>/ws, the WebSocket API (ws/sim-ws-server.ts)
 *   sim.wsFaults.dropAll();       // WebSocket faults: dropAll, silent, pushDelayMs, duplicatePushes
 *   await sim.close();
 */
export interface SimMarketOptions {
  readonly name: MarketName;
  /** Candle CSV (time,open,high,low,close,volume) replayed with its own timestamps; random walk when absent. */
  readonly csvPath?: string;
  /** Rows given directly (tests); wins over csvPath. */
  readonly rows?: readonly CsvCandleRow[];
  /** Overrides of the market's rules (precision, minimums, fees as ratios). */
  readonly info?: Partial<MarketInfo>;
  /** Random walk only: first price. Default BTC 30000, ETH 2000, others 100. */
  readonly startPrice?: number;
}

export interface SimAccountOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly funding?: AccountFunding;
}

export interface SimulatedExchangeOptions {
  /** 0 (default) = a random free port. */
  readonly port?: number;
  readonly host?: string;
  /** Single-account shortcut; `balances` funds its trading balance, `collateralBalances` its collateral balance. */
  readonly apiKey?: string;
  readonly apiSecret?: string;
  readonly balances?: Readonly<Record<string, string>>;
  /** The collateral account OCOs trade on (empty when omitted, as on the venue until a transfer funds it). */
  readonly collateralBalances?: Readonly<Record<string, string>>;
  /** The main (funding) account, e.g. to fund the collateral account by `main-account/transfer`. */
  readonly mainBalances?: Readonly<Record<string, string>>;
  readonly accounts?: readonly SimAccountOptions[];
  /** Default: BTC_USDT as a seeded random walk. */
  readonly markets?: readonly SimMarketOptions[];
  /** Market clock start, Unix seconds. Default: the first candle of the CSV markets, else now (minute-aligned). */
  readonly start?: number;
  /** Market seconds per real second. Default 60; 0 = the clock moves only through advanceTo/advanceBy. */
  readonly speed?: number;
  /** Seeds the random walks and the fault PRNG. Default 1. */
  readonly seed?: number;
  /** Rate limits per scope; false disables them. Default: limits.ts. */
  readonly rateLimits?: LimitTable | false;
  /** Faults active from the start (all off by default). */
  readonly faults?: Partial<FaultSettings>;
  /** Wall clock for nonce windows, rate windows and /time. Default SystemClock. */
  readonly wallClock?: Clock;
  readonly historyLimit?: number;
  /** Partial fills and the OCO rule (engine/fill-model.ts); default: the real behaviour. */
  readonly fillModel?: FillModel;
  /** Which balance OCOs use (SimEngineOptions.collateral); default 'separate', as live. */
  readonly collateral?: CollateralMode;
  /** The client order id on OCO legs (SimEngineOptions.ocoLegIds); default 'empty', as the venue documents. */
  readonly ocoLegIds?: OcoLegIds;
  /** The one wire dialect the server speaks (paths, fields in and out). Default `venue`. */
  readonly dialect?: DialectName;
  /**
   * A body field the dialect does not know: `refuse` (default) answers 422 code 30 naming it, so a
   * dialect mismatch fails in paper mode; `ignore` drops it silently, as the live venue does (to
   * rehearse what a mismatch does live, e.g. the client-id echo guard).
   */
  readonly unknownFields?: UnknownFieldPolicy;
  /** `eu` refuses stop-limit, OCO and limit orders with HTTP 453, as the venue's EU region does. Default `global`. */
  readonly region?: SimRegion;
  /** The WebSocket twin at `/ws` on the same port (docs/simulator.md "WebSocket API"). */
  readonly ws?: SimWsOptions;
}

export interface SimWsOptions {
  /** Close a connection after this long without a client message. Default 60 000, as documented. */
  readonly idleTimeoutMs?: number;
  /** Lifetime of a `profile/websocket_token` token. Default 5 minutes (the docs say "short-lived"). */
  readonly tokenTtlMs?: number;
  /** WebSocket faults active from the start (all off by default). */
  readonly faults?: Partial<WsFaultSettings>;
  /** Push intervals of the periodic channels; default the documented ones (candles 500, lastprice and balances 1000). */
  readonly tickIntervals?: Partial<WsTickIntervals>;
}

export interface SimulatedExchange {
  readonly url: string;
  /** The WebSocket API: `ws://host:port/ws`. */
  readonly wsUrl: string;
  readonly port: number;
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly clock: ManualClock;
  /** Moves the market clock to `seconds` and applies what closed meanwhile; returns the engine events. */
  advanceTo(seconds: number): EngineEvent[];
  advanceBy(seconds: number): EngineEvent[];
  setSpeed(speed: number): void;
  readonly faults: Faults;
  /** The WebSocket fault switches: silent, pushDelayMs, duplicatePushes, and dropAll(). */
  readonly wsFaults: WsFaults;
  readonly dialect: DialectName;
  close(): Promise<void>;
}

const WALK_HISTORY = 7 * 86_400;

export async function startSimulatedExchange(options: SimulatedExchangeOptions = {}): Promise<SimulatedExchange> {
  const seed = options.seed ?? 1;
  const wallClock = options.wallClock ?? new SystemClock();
  const marketOptions = options.markets ?? [{ name: 'BTC_USDT' }];
  const recorded = new Map<MarketName, readonly CsvCandleRow[]>();
  for (const m of marketOptions) {
    if (m.rows !== undefined) recorded.set(m.name, m.rows);
    else if (m.csvPath !== undefined) recorded.set(m.name, await loadCsvRows(m.csvPath));
  }
  const firstRecorded = Math.min(...[...recorded.values()].map((rows) => rows[0]?.time ?? Infinity));
  const start = options.start ?? (Number.isFinite(firstRecorded) ? firstRecorded : Math.floor(wallClock.nowMs() / 1000 / MINUTE) * MINUTE);

  const infos = marketOptions.map((m) => simMarketInfo(m.name, m.info));
  const sources = new Map<MarketName, CandleSource>();
  marketOptions.forEach((m, i) => {
    const rows = recorded.get(m.name);
    const info = infos[i]!;
    sources.set(m.name, rows !== undefined ? new RowsCandleSource(rows)
      : new RandomWalkSource(Math.floor(start / MINUTE) * MINUTE - WALK_HISTORY, m.startPrice ?? defaultStartPrice(m.name),
        seed * 7919 + hashName(m.name), info.moneyPrec));
  });

  const clock = new ManualClock(start * 1000, { speed: options.speed ?? 60, real: wallClock });
  const engine = new SimEngine({
    clock, markets: infos,
    ...(options.historyLimit === undefined ? {} : { historyLimit: options.historyLimit }),
    ...(options.fillModel === undefined ? {} : { fillModel: options.fillModel }),
    ...(options.collateral === undefined ? {} : { collateral: options.collateral }),
    ...(options.ocoLegIds === undefined ? {} : { ocoLegIds: options.ocoLegIds }),
  });
  const secrets = new Map<string, string>();
  const accounts = [...(options.accounts ?? [])];
  if (options.apiKey !== undefined && options.apiSecret !== undefined) {
    accounts.push({
      apiKey: options.apiKey, apiSecret: options.apiSecret,
      funding: { trading: options.balances ?? {}, collateral: options.collateralBalances ?? {}, main: options.mainBalances ?? {} },
    });
  }
  for (const account of accounts) {
    engine.openAccount(account.apiKey, account.funding ?? {});
    secrets.set(account.apiKey, account.apiSecret);
  }
  const feed = new MarketFeed(engine, clock, sources);
  const faults = new Faults(seed);
  if (options.faults !== undefined) faults.configure(options.faults);
  const dialect = options.dialect ?? DEFAULT_DIALECT;
  const wsTokens = new WsTokens(options.ws?.tokenTtlMs ?? DEFAULT_WS_TOKEN_TTL_MS);
  const wsFaults = new WsFaults();
  if (options.ws?.faults !== undefined) wsFaults.configure(options.ws.faults);
  const server = new SimHttpServer({
    engine, feed, marketClock: clock, wallClock, secrets, faults,
    limits: options.rateLimits === false ? undefined : (options.rateLimits ?? LIMITS),
    dialect: DIALECTS[dialect], unknownFields: options.unknownFields ?? 'refuse', region: options.region ?? 'global',
    wsTokens,
  });
  const wsServer = new SimWsServer(server.nodeServer, {
    engine, feed, marketClock: clock, wallClock, tokens: wsTokens, faults: wsFaults,
    idleTimeoutMs: options.ws?.idleTimeoutMs ?? DEFAULT_WS_IDLE_TIMEOUT_MS,
    ticks: { ...DEFAULT_TICK_INTERVALS, ...options.ws?.tickIntervals },
    syncMarket: () => server.syncMarket(),
  });
  const host = options.host ?? '127.0.0.1';
  const port = await server.listen(options.port ?? 0, host);
  // A running clock must fill orders and fire kill-switches even when nobody calls.
  const ticker = setInterval(() => { if (clock.speed > 0) server.syncMarket(); }, 250);
  ticker.unref();

  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}${WS_PATH}`,
    port,
    engine,
    feed,
    clock,
    advanceTo(seconds) {
      clock.advanceTo(seconds);
      return feed.sync();
    },
    advanceBy(seconds) {
      clock.advanceBy(seconds);
      return feed.sync();
    },
    setSpeed(speed) {
      clock.setSpeed(speed);
    },
    faults,
    wsFaults,
    dialect,
    async close() {
      clearInterval(ticker);
      await wsServer.close();
      await server.close();
    },
  };
}

function defaultStartPrice(name: MarketName): number {
  if (name.startsWith('BTC_')) return 30_000;
  if (name.startsWith('ETH_')) return 2_000;
  return 100;
}

function hashName(name: string): number {
  let h = 0;
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h;
}

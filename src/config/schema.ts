import { z } from 'zod';
import { INTERVALS } from '../domain/candle';
import { MARKET_NAME } from '../domain/market';
import { OCO_CANCEL_ON, parseFillModel } from '../domain/fill-model';
import { GUEST_ISOLATION_CHOICES, GUEST_ISOLATION_LEVELS } from '../domain/guest-isolation';
import { DEFAULT_DIALECT, DIALECT_NAMES } from '../exchange/wire/dialects';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../exchange/http/response-cap';
import { DEFAULT_STREAM_URL, RISK_DEFAULTS, STRATEGY_DEFAULTS, STREAM_MODES } from './defaults';
import { streamUrlProblem } from './base-url';
import { HOST_PORT } from './redis-target';
import { consoleSection } from './console-schema';
import { notificationsSection } from './notifications-schema';
import { guardrailsSection } from './guardrails-schema';
import { decimalString } from './decimal-string';

/**
 * The whole configuration, validated once at start-up and then frozen. Secrets are NOT part of it:
 * they come only from the environment or files (see load.ts) and any secret-looking key in the file
 * is refused.
 */

const market = z.string().regex(MARKET_NAME, 'must be a market name like BTC_USDT');
const interval = z.enum(INTERVALS);
const positiveInt = z.number().int().positive();

const riskLimits = z.strictObject({
  maxNotionalPerOrder: decimalString.optional(),
  maxNotionalPerMarket: decimalString.optional(),
  maxOpenOrdersPerStrategyMarket: positiveInt.optional(),
  /** Allowed distance of a price from the last price, as a ratio (0.05 = 5 %). */
  priceBand: decimalString.optional(),
});

/**
 * The `risk` section. Exported because `tradebot backtest --risk` takes the same JSON (same names,
 * same defaults, same errors), so a backtest runs under the limits the daemon would apply.
 */
export const riskSection = z
  .strictObject({
    initialState: z.enum(['active', 'halted', 'reducing']).default(RISK_DEFAULTS.initialState),
    defaults: riskLimits.prefault({}),
    markets: z.record(market, riskLimits).default({}),
    /** Realised loss in the quote currency per UTC day after which new entries stop. */
    dailyLossLimit: decimalString.optional(),
    /** Fee margin added to balance checks, as a ratio. */
    feeMargin: decimalString.default(RISK_DEFAULTS.feeMargin),
    /** Drawdown stops, cooldowns and budgets per strategy (docs/risk.md). */
    guardrails: guardrailsSection.prefault({}),
  });

/** `host:port,host:port` (an environment variable) or a YAML list of `host:port`. */
const hostPortList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter((x) => x !== '') : v),
  z.array(z.string().regex(HOST_PORT, 'expected host:port')).min(1, 'at least one host:port'),
);

export const configSchema = z.strictObject({
  mode: z.enum(['paper', 'live']),
  exchange: z
    .strictObject({
      baseUrl: z.url().default('https://whitebit.com'),
      euBaseUrl: z.url().optional(),
      primaryRegion: z.enum(['global', 'eu']).default('global'),
      /** Deadline of one HTTP attempt, from connect to the last byte of the answer. */
      timeoutMs: positiveInt.max(120_000).default(10_000),
      /** Answers larger than this are refused and their connection dropped (64 KiB .. 256 MiB). */
      maxResponseBytes: z.number().int().min(65_536).max(268_435_456).default(DEFAULT_MAX_RESPONSE_BYTES),
      nonceWindow: z.boolean().default(true),
      /**
       * How the venue spells the API (src/exchange/wire/): `venue`, the exchange's documented wire
       * (the default: money runs there), or `spec`, the spellings of exchange-api.md.
       */
      dialect: z.enum(DIALECT_NAMES).default(DEFAULT_DIALECT),
      retry: z
        .strictObject({
          attempts: z.number().int().min(1).max(10).default(3),
          baseDelayMs: positiveInt.default(250),
          maxDelayMs: positiveInt.default(5000),
        })
        .prefault({}),
      /** Share of each exchange limit the shared token bucket may use (headroom for clock skew and other tools). */
      limitUtilisation: z.number().gt(0).max(1).default(0.95),
      /**
       * Which WebSocket streams the daemon uses (docs/streams.md): `all` (default), `market` (candle
       * rollovers, last price), `account` (orders and fills into the journal), `off` (REST polling only).
       * REST stays the truth and takes over at once whenever a stream is down or silent.
       */
      streams: z.enum(STREAM_MODES).default('all'),
      websocket: z
        .strictObject({
          /** The venue's WebSocket API (paper mode: the embedded simulator's twin, whatever this says). */
          url: z.string().superRefine((v, ctx) => {
            const problem = streamUrlProblem(v);
            if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
          }).default(DEFAULT_STREAM_URL),
          /** JSON ping at least this often (the venue drops a connection after 60 s without a client message). */
          pingIntervalMs: z.number().int().min(1000).max(55_000).default(50_000),
          /** A ping or request unanswered this long: the socket is dropped and reconnected. */
          pongTimeoutMs: z.number().int().min(100).max(60_000).default(10_000),
          /** A stream silent this long falls back to REST polling and is reconnected. */
          staleAfterMs: z.number().int().min(200).max(120_000).default(15_000),
          /** Reconnect backoff, jittered: from min, doubling, to max. */
          backoffMinMs: z.number().int().min(10).max(60_000).default(1000),
          backoffMaxMs: z.number().int().min(10).max(300_000).default(30_000),
          /** How long after a candle's close its REST fetch waits at least (the venue's kline cache). */
          klineCacheMs: z.number().int().min(0).max(10_000).default(1000),
          /** While the account stream is healthy, the periodic reconciliation runs every this many intervals. */
          reconcileEvery: z.number().int().min(1).max(100).default(4),
        })
        .refine((w) => w.backoffMinMs <= w.backoffMaxMs, { message: 'backoffMinMs must not exceed backoffMaxMs', path: ['backoffMinMs'] })
        .refine((w) => w.pongTimeoutMs < w.pingIntervalMs, { message: 'pongTimeoutMs must be below pingIntervalMs', path: ['pongTimeoutMs'] })
        .prefault({}),
    })
    .prefault({}),
  redis: z
    .strictObject({
      /** Required in live mode; usually given as TRADEBOT_REDIS_URL. */
      url: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
      /** Sentinels that know the primary (usually TRADEBOT_REDIS_SENTINELS=host:port,host:port): instead of `url`. */
      sentinels: hostPortList.optional(),
      /** The master group name the sentinels monitor (TRADEBOT_REDIS_SENTINEL_NAME); required with `sentinels`. */
      sentinelName: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (at most 64)').optional(),
      /** Redis Cluster seed nodes (TRADEBOT_REDIS_CLUSTER_NODES=host:port,...): instead of `url`. */
      clusterNodes: hostPortList.optional(),
      /** TLS to Redis (and to the sentinels) with `sentinels` or `clusterNodes`; a `url` says it with rediss://. */
      tls: z.boolean().default(false),
      keyPrefix: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('tradebot'),
      /** Replicas that must confirm an order's journal record (WAIT) before it is sent; 0 = asynchronous replication. */
      replicaAcks: z.number().int().min(0).max(10).default(0),
      /** How long an order waits for those confirmations; below the Redis command timeout (2 s). */
      replicaAckTimeoutMs: z.number().int().min(10).max(1500).default(500),
      /** A start while Redis is unreachable waits (not ready) this long, then exits 1; unset = until Redis answers or a stop. */
      startupWaitSeconds: z.number().int().positive().optional(),
    })
    .prefault({}),
  paper: z
    .strictObject({
      /** Market seconds per real second of the embedded simulated exchange. */
      speed: z.number().positive().max(100_000).default(60),
      /** Unix seconds where the market clock starts; default: the first candle + the warm-up. */
      start: z.number().int().nonnegative().optional(),
      seed: z.number().int().default(1),
      /**
       * A running `tradebot sim-exchange` to trade against instead of the embedded one (credentials
       * from TRADEBOT_API_KEY / TRADEBOT_API_SECRET): it keeps its orders and balances while the
       * daemon restarts, and its market clock is read from it (GET /_sim/clock).
       */
      exchangeUrl: z.url().optional(),
      /** The embedded simulator's markets and starting balances (required unless exchangeUrl). */
      markets: z.array(z.strictObject({ market, data: z.string().min(1) })).min(1).optional(),
      balances: z.record(z.string().regex(/^[A-Z0-9]+$/), decimalString).optional(),
      /**
       * Starting balances of the collateral account, where OCOs hold their margin. Empty when omitted,
       * as on the venue until a transfer funds it: never a copy of `balances`.
       */
      collateral: z.record(z.string().regex(/^[A-Z0-9]+$/), decimalString).default({}),
      /** The simulator's fill model (docs/simulator.md); the defaults are what real markets do. */
      fill: z
        .strictObject({
          /** Share of each candle's volume orders may fill, in (0, 1], or "off" (complete fills). Default 0.1. */
          volumeShare: z
            .union([z.string(), z.number()])
            .transform((v) => String(v).trim())
            .refine((v) => parseFillModel({ volumeShare: v }).ok, { message: 'must be a share in (0, 1], e.g. 0.1, or "off"' })
            .optional(),
          /** When an OCO leg cancels the other: on its execution (as live) or already on the stop's trigger. */
          ocoCancelOn: z.enum(OCO_CANCEL_ON).optional(),
        })
        .prefault({}),
    })
    .optional(),
  strategies: z
    .strictObject({
      dir: z.string().default('strategies'),
      /** Time budget of one onCandle call. */
      timeBudgetMs: positiveInt.default(STRATEGY_DEFAULTS.timeBudgetMs),
      /** Consecutive failures after which a strategy is paused. */
      maxConsecutiveFailures: positiveInt.default(STRATEGY_DEFAULTS.maxConsecutiveFailures),
      /** Heap limit of one strategy's worker thread (MB). */
      guestHeapMb: positiveInt.default(STRATEGY_DEFAULTS.guestHeapMb),
      /** How guests are walled off (docs/security.md): `auto` = the strongest this host allows. */
      guestIsolation: z.enum(GUEST_ISOLATION_CHOICES).default(STRATEGY_DEFAULTS.guestIsolation),
      /** The weakest isolation the daemon starts with; default `permission-net` live, `thread` paper. */
      minGuestIsolation: z.enum(GUEST_ISOLATION_LEVELS).optional(),
      /** Lines per second one guest may log (over it they are dropped and counted). */
      guestLogLinesPerSecond: positiveInt.default(STRATEGY_DEFAULTS.guestLogLinesPerSecond),
      /**
       * A reloaded version is promoted on its own after this many candles in a row without a failure
       * of its shadow (0: only `tradebot promote`). docs/strategies.md "Changing a running strategy".
       */
      shadowCandles: z.number().int().min(0).default(0),
      /**
       * Where the daemon keeps each version's module sources (rollback, restarts) and, without Redis,
       * the promoted versions and the CLI's requests. Relative to the working directory.
       */
      stateDir: z.string().min(1).default('state/strategies'),
      enabled: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            markets: z.array(market).min(1).optional(),
            interval: interval.optional(),
            params: z.record(z.string(), z.unknown()).default({}),
          }),
        )
        .min(1, 'enable at least one strategy'),
    }),
  risk: riskSection.prefault({}),
  killSwitch: z
    .strictObject({
      enabled: z.boolean().default(false),
      markets: z.array(market).default([]),
      timeoutSeconds: z.number().int().min(5).max(600).default(60),
      refreshSeconds: z.number().int().min(1).default(20),
    })
    .refine((k) => k.refreshSeconds * 2 <= k.timeoutSeconds, {
      message: 'refreshSeconds must be at most half of timeoutSeconds, so one missed refresh does not cancel orders',
      path: ['refreshSeconds'],
    })
    .prefault({}),
  leases: z
    .strictObject({
      /**
       * How long a (strategy, market) lease lives without renewal (renewed about every third of it).
       * A replica that died on another host frees its scopes after this; one that died on this host
       * (a crash, then a restart) is taken over at once.
       */
      ttlSeconds: positiveInt.min(3).max(300).default(10),
    })
    .prefault({}),
  reconcile: z
    .strictObject({
      intervalSeconds: positiveInt.default(30),
      /** What to do with open orders at the exchange that the journal does not know (and this deployment did not place). */
      unknownOrderPolicy: z.enum(['ignore', 'adopt', 'cancel']).default('ignore'),
      /** Orders whose client ids this deployment minted but the journal lost (Redis came back empty): adopt them again. */
      ownOrderPolicy: z.enum(['adopt', 'ignore']).default('adopt'),
    })
    .prefault({}),
  polling: z
    .strictObject({
      balanceIntervalSeconds: positiveInt.default(30),
      /** Delay after a candle closes before polling (the exchange caches kline answers for 1 s). */
      klineDelayMs: z.number().int().min(1000).default(1500),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      enabled: z.boolean().default(true),
      port: z.number().int().min(0).max(65_535).default(9464),
      host: z.string().default('127.0.0.1'),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
      /** Coloured text for people, JSON for machines: `auto` = pretty when stdout is a terminal. */
      pretty: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    })
    .prefault({}),
  shutdown: z.strictObject({ graceMs: positiveInt.max(120_000).default(10_000) }).prefault({}),
  /** The drift check (docs/drift.md): what the daemon records, and the periodic check against its own backtest. */
  drift: z
    .strictObject({
      /** Record closed candles, intent outcomes, balance snapshots and runs in the store. */
      record: z.boolean().default(true),
      /** Market days of records kept; older ones are dropped on each write. */
      retentionDays: z.number().int().min(1).max(365).default(14),
      /** At most this many records per list (each (market, interval) of candles, decisions, balance snapshots). */
      maxEntries: z.number().int().min(100).max(5_000_000).default(50_000),
      /** Wall seconds between two heartbeats: a killed daemon's downtime starts at its last one. */
      heartbeatSeconds: z.number().int().min(1).max(600).default(10),
      /** Market minutes between two checks run by the daemon in a child process; 0 = no periodic check. */
      intervalMinutes: z.number().int().min(0).max(10_080).default(0),
      /** Market minutes each periodic check covers, ending at the last closed candle. */
      windowMinutes: z.number().int().min(1).max(43_200).default(60),
      /** Unexplained differences a check tolerates before it counts as failed (metric, alert). */
      maxUnexplained: z.number().int().min(0).default(0),
    })
    .prefault({}),
  console: consoleSection,
  notifications: notificationsSection,
});

export type Config = z.infer<typeof configSchema>;

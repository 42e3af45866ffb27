import type { Clock } from '../core/clock';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pino, { type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';
import { REDACTED } from '../config/secret';
import { compactErrorFields } from './compact-error';
import { scrub } from './scrub';

/** The logger every component receives. A pino logger: `log.info({ market }, 'message')`. */
export type Logger = PinoLogger;
export type LogLevel = Level | 'silent';

export interface LoggerOptions {
  /** Minimum level written; default 'info'. */
  readonly level?: LogLevel;
  /** Human-readable colour output through pino-pretty, for development. Production keeps JSON. */
  readonly pretty?: boolean;
  /** Where lines go; default stdout. Tests and the secret scan pass a capturing stream. */
  readonly destination?: DestinationStream;
  /** Fields written on every line, e.g. `{ mode: 'live' }`. */
  readonly base?: Readonly<Record<string, unknown>>;
  /** The clock of `time` in ms (a backtest stamps lines with its simulated time); default the wall clock. */
  readonly time?: Clock;
}

/**
 * pino `redact` paths: the secret keys at the top level of a line or of a child's bindings, and
 * the exchange's auth headers one level down. Exact paths only: pino's `*.` wildcards put every
 * top-level value through the redactor and cost 50x the line itself (bench/logging.bench.ts).
 * Every deeper level is covered by `scrub` (formatters.log), which matches the same keys at any depth.
 */
const TOP_LEVEL_KEYS = [
  'apiSecret', 'api_secret', 'apiKey', 'api_key', 'secret', 'signature', 'password', 'token',
  'authorization', 'Authorization', 'cookie', 'redisUrl',
] as const;
const AUTH_HEADERS = [
  'X-TXC-SIGNATURE', 'X-TXC-PAYLOAD', 'X-TXC-APIKEY', 'x-txc-signature', 'x-txc-payload', 'x-txc-apikey',
  'authorization', 'Authorization',
] as const;

/** Every pino redact path tradebot uses; exported so tests can prove each one hides a value. */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  ...TOP_LEVEL_KEYS,
  ...AUTH_HEADERS.map((h) => `headers["${h}"]`),
]);

/** The root logger. Components take `componentLogger(root, 'executor')`, never the root itself. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const pinoOptions: pino.LoggerOptions = {
    name: 'tradebot',
    level: options.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    // ISO time reads better in `kubectl logs` and costs little next to the network calls we log.
    timestamp: options.time === undefined ? pino.stdTimeFunctions.isoTime : simulatedIsoTime(options.time),
    // Level names instead of numbers: log shippers (Loki, CloudWatch) filter on them directly.
    formatters: { level: (label) => ({ level: label }), log: (obj) => scrub(obj) },
    serializers: { err: pino.stdSerializers.err },
    ...(options.base === undefined ? {} : { base: { pid: process.pid, hostname: hostname(), ...options.base } }),
  };
  if (options.pretty === true) {
    // In-process pretty stream (not a worker transport): simpler, synchronous, development only.
    // Required here, not at the top: it is a development aid and costs ~50 ms to load (a backtest's log never uses it).
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    const stream = pretty({
      colorize: options.destination === undefined,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name',
      // One line per event with its fields inline: the multi-line default made 5 to 12 lines per event on a terminal.
      singleLine: true,
      // Only `err` (which pino-pretty always adds) prints below the line; compactErrorFields renames it to `error`.
      errorLikeObjectKeys: ['err'],
      ...(options.destination === undefined ? {} : { destination: options.destination }),
    });
    // Errors inline too, with where they were thrown instead of the whole stack (compact-error.ts).
    const terminal = { ...pinoOptions.formatters, log: (obj: Record<string, unknown>) => compactErrorFields(scrub(obj)) };
    return pino({ ...pinoOptions, formatters: terminal }, stream);
  }
  return options.destination === undefined ? pino(pinoOptions) : pino(pinoOptions, options.destination);
}

function simulatedIsoTime(clock: Clock): () => string {
  return () => `,"time":"${new Date(clock.nowMs()).toISOString()}"`;
}

/** A child logger tagged with the component name (`executor`, `candle-poller`, `metrics-server`). */
export function componentLogger(parent: Logger, component: string, bindings: Readonly<Record<string, unknown>> = {}): Logger {
  // Bindings skip formatters.log, so they are scrubbed here (a direct `log.child()` only gets the
  // top-level REDACT_PATHS).
  return parent.child(scrub({ component, ...bindings }));
}

/** A fresh request id: short enough to read, unique enough to grep one request's lines. */
export function newRequestId(): string {
  return randomUUID().slice(0, 13);
}

/**
 * A child logger whose every line carries `reqId`, for one exchange request or one order
 * submission; pass an id to correlate with one already chosen (e.g. the client order id).
 */
export function withRequestId(parent: Logger, reqId: string = newRequestId()): Logger {
  return parent.child({ reqId });
}

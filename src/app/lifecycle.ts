import * as path from 'node:path';
import { Registry } from 'prom-client';
import { loadConfig, type FrozenConfig } from '../config/load';
import { ConfigError, StrategyLoadError, TradebotError } from '../domain/errors';
import { createLogger, type Logger } from '../log/logger';
import { TradebotApp } from './build-app';

/**
 * Exit codes of `tradebot run`:
 * - 0  stopped by SIGTERM/SIGINT and everything finished within shutdown.graceMs
 * - 1  fatal error at run time (uncaught exception, failed start-up, a Redis client ended for good), or the grace delay ran out
 * - 78 (EX_CONFIG) the config or the strategies are invalid: restarting cannot help (pm2 stop_exit_codes)
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_CONFIG = 78;

export interface DaemonOptions {
  readonly configFile: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Where relative paths in the config resolve (default: the current directory). */
  readonly baseDir?: string;
  /** Where a config error is written before any logger exists (default stderr). */
  readonly stderr?: (text: string) => void;
  readonly version?: string;
}

/**
 * Runs the daemon until a signal stops it; resolves with the exit code (the caller exits with it).
 * SIGTERM/SIGINT: graceful stop within shutdown.graceMs. SIGUSR1: halt trading (stored, like
 * `tradebot pause`). SIGUSR2 and SIGHUP are logged and ignored: anything running as the daemon's
 * user (a strategy guest included) can send a signal, so a signal may only make things safer;
 * resuming goes through `tradebot resume`, reloading (which runs new strategy code) through
 * `tradebot reload` (docs/daemon.md "Signals").
 * An uncaught exception or unhandled rejection is logged and ends the process with 1 at once: a
 * daemon in an unknown state must not keep trading (the kill-switch then cancels its orders).
 */
export async function runDaemon(options: DaemonOptions): Promise<number> {
  const env = options.env ?? process.env;
  const stderr = options.stderr ?? ((t: string) => process.stderr.write(t));
  let config: FrozenConfig;
  try {
    config = loadConfig(options.configFile, env);
  } catch (error) {
    stderr(`${describe(error)}\n`);
    return error instanceof ConfigError ? EXIT_CONFIG : EXIT_FAILURE;
  }
  const pretty = config.log.pretty === 'auto' ? process.stdout.isTTY === true : config.log.pretty;
  const logger = createLogger({ level: config.log.level, pretty, base: { mode: config.mode } });
  const app = new TradebotApp({
    config, logger, env, registry: new Registry(), baseDir: options.baseDir ?? process.cwd(), configFile: options.configFile,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  return superviseApp(app, config, logger);
}

async function superviseApp(app: TradebotApp, config: FrozenConfig, logger: Logger): Promise<number> {
  const abort = new AbortController();
  let resolveExit!: (code: number) => void;
  const exit = new Promise<number>((resolve) => { resolveExit = resolve; });
  let shuttingDown: Promise<void> | undefined;

  const shutdown = (reason: string): Promise<void> => {
    if (shuttingDown !== undefined) {
      logger.warn({ reason }, 'shutdown already in progress');
      return shuttingDown;
    }
    logger.info({ reason, graceMs: config.shutdown.graceMs }, 'shutting down: scheduling stopped, waiting for in-flight submissions');
    abort.abort();
    // Backstop: whatever hangs, the process ends (exit 1) shortly after the grace delay.
    const hard = setTimeout(() => {
      logger.error({ graceMs: config.shutdown.graceMs }, 'shutdown grace delay exceeded: exiting 1');
      resolveExit(EXIT_FAILURE);
    }, config.shutdown.graceMs + 1000);
    hard.unref();
    shuttingDown = app.stop(config.shutdown.graceMs).then((clean) => {
      clearTimeout(hard);
      logger.info({ clean }, clean ? 'stopped cleanly' : 'stopped, but not everything finished within the grace delay');
      resolveExit(clean ? EXIT_OK : EXIT_FAILURE);
    }, (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      resolveExit(EXIT_FAILURE);
    });
    return shuttingDown;
  };

  const onFatal = (kind: string) => (error: unknown): void => {
    logger.fatal({ err: error, kind }, 'fatal error: exiting 1 rather than trading in an unknown state');
    resolveExit(EXIT_FAILURE);
  };
  // A flood of signals costs a log line per signal every 10 s and at most one store write at a time.
  const ignored = rateLimitedWarning(logger, 10_000);
  let pausing = false;
  const pause = (): void => {
    const control = app.tradingControl;
    if (control === undefined) return ignored('SIGUSR1', 'SIGUSR1 ignored: not started yet (the stored state or risk.initialState applies at start)');
    if (pausing) return ignored('SIGUSR1', 'SIGUSR1 ignored: a pause by signal is being stored');
    pausing = true;
    void control.set('halted', 'signal SIGUSR1').finally(() => { pausing = false; });
  };
  const handlers: [string, (...args: any[]) => void][] = [
    ['SIGTERM', () => void shutdown('SIGTERM')],
    ['SIGINT', () => void shutdown('SIGINT')],
    ['SIGUSR1', pause],
    // Handled (the default action would end the process) but never a resume: see runDaemon.
    ['SIGUSR2', () => ignored('SIGUSR2', 'SIGUSR2 ignored: a signal cannot resume trading; resume with `tradebot resume --config <file>` (the daemon confirms it)')],
    ['SIGHUP', () => ignored('SIGHUP', 'SIGHUP ignored: strategies are reloaded only by `tradebot reload --config <file>` (a reload runs new strategy code)')],
    ['uncaughtException', onFatal('uncaughtException')],
    ['unhandledRejection', onFatal('unhandledRejection')],
  ];
  for (const [event, handler] of handlers) process.on(event, handler);
  app.onFatal(onFatal('part failed'));

  app.start(abort.signal).then(() => {
    if (abort.signal.aborted) return;
    // pm2 (wait_ready) and anything supervising over IPC: started, reconciled, scheduling.
    process.send?.('ready');
  }, (error: unknown) => {
    if (abort.signal.aborted) return; // the shutdown path reports
    const code = error instanceof ConfigError || error instanceof StrategyLoadError ? EXIT_CONFIG : EXIT_FAILURE;
    logger.fatal({ err: error, exitCode: code }, `start-up failed: ${describe(error)}`);
    void app.stop(Math.min(config.shutdown.graceMs, 5000)).finally(() => resolveExit(code));
  });

  const code = await exit;
  for (const [event, handler] of handlers) process.off(event, handler);
  await new Promise<void>((resolve) => { logger.flush(() => resolve()); });
  return code;
}

/** Logs `message` for a signal at most once per `everyMs`, with how many were suppressed since. */
function rateLimitedWarning(logger: Logger, everyMs: number): (signal: string, message: string) => void {
  const last = new Map<string, { atMs: number; suppressed: number }>();
  return (signal, message) => {
    const now = Date.now();
    const entry = last.get(signal);
    if (entry !== undefined && now - entry.atMs < everyMs) {
      entry.suppressed += 1;
      return;
    }
    logger.warn({ signal, suppressed: entry?.suppressed ?? 0 }, message);
    last.set(signal, { atMs: now, suppressed: 0 });
  };
}

/** One line naming the error's code, message and (for config errors) the key path. */
export function describe(error: unknown): string {
  if (error instanceof TradebotError) return `${error.code} ${error.name}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Resolves a config path argument against the current directory (for messages and baseDir). */
export function resolveConfigPath(file: string): string {
  return path.resolve(process.cwd(), file);
}

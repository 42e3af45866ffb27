import * as path from 'node:path';
import { Registry } from 'prom-client';
import { loadConfig, type FrozenConfig } from '../config/load';
import { ConfigError, StrategyLoadError, TradebotError } from '../domain/errors';
import { createLogger, type Logger } from '../log/logger';
import { TradebotApp } from './build-app';

/**
 * Exit codes of `tradebot run`:
 * - 0  stopped by SIGTERM/SIGINT and everything finished within shutdown.graceMs
 * - 1  fatal error at run time (uncaught exception, failed start-up), or the grace delay ran out
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
 * SIGTERM/SIGINT: graceful stop within shutdown.graceMs. SIGUSR1: halt trading. SIGUSR2: resume.
 * SIGHUP: reload the config and the strategy modules (a changed strategy starts as a shadow).
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
  const setState = (state: 'halted' | 'active', signal: string): void => {
    const control = app.tradingControl;
    if (control === undefined) return void logger.warn({ signal }, 'trading state signal ignored: not started yet');
    void control.set(state, `signal ${signal}`);
  };
  const handlers: [string, (...args: any[]) => void][] = [
    ['SIGTERM', () => void shutdown('SIGTERM')],
    ['SIGINT', () => void shutdown('SIGINT')],
    ['SIGUSR1', () => setState('halted', 'SIGUSR1')],
    ['SIGUSR2', () => setState('active', 'SIGUSR2')],
    // Re-read the config and the strategy modules: a changed strategy starts as a shadow (docs/strategies.md).
    ['SIGHUP', () => void app.reloadStrategies('SIGHUP').catch((err: unknown) => logger.error({ err }, 'strategy reload failed'))],
    ['uncaughtException', onFatal('uncaughtException')],
    ['unhandledRejection', onFatal('unhandledRejection')],
  ];
  for (const [event, handler] of handlers) process.on(event, handler);

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

/** One line naming the error's code, message and (for config errors) the key path. */
export function describe(error: unknown): string {
  if (error instanceof TradebotError) return `${error.code} ${error.name}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Resolves a config path argument against the current directory (for messages and baseDir). */
export function resolveConfigPath(file: string): string {
  return path.resolve(process.cwd(), file);
}

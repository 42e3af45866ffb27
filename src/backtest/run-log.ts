import type { Clock } from '../core/clock';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StrategyLogger } from '../strategy/strategy';
import type { Logger } from '../log/logger';

/** `ctx.log` of a backtest: a StrategyLogger with pino's `child`. */
export type RunLogger = StrategyLogger & { child(bindings: Record<string, unknown>): RunLogger };

/** The `ctx.log` of a backtest, written to a file beside the report. */
export interface RunLog {
  /** A logger stamping lines with the run's simulated time (the replay passes its clock). */
  readonly factory: (clock: Clock) => RunLogger;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

type Destination = ReturnType<typeof import('pino').destination>;

/**
 * Opens (truncates) `file` for a backtest's log: JSON lines as the daemon writes them (pino, same
 * redaction), at level debug so an author's debug output is kept, `time` = the simulated time. The
 * host logs each strategy failure there too, with its stack.
 *
 * pino is loaded and the file opened for writing on the first line only: most runs log nothing,
 * and loading pino costs a tenth of a month's backtest. The (empty) file exists from the start.
 */
export async function openRunLog(file: string): Promise<RunLog> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, '');
  let destination: Destination | undefined;
  let root: Logger | undefined;
  const rootFor = (clock: Clock): Logger => {
    if (root === undefined) {
      const pino = require('pino') as typeof import('pino');
      const { createLogger } = require('../log/logger') as typeof import('../log/logger');
      // Asynchronous and buffered, as before: lines written before the file is open wait in the buffer.
      destination = pino.destination({ dest: file, sync: false, minLength: 8 * 1024, append: true });
      root = createLogger({ level: 'debug', destination, time: clock, base: { run: 'backtest' } });
    }
    return root;
  };
  return {
    factory: (clock) => lazyLogger(() => rootFor(clock)),
    close: async () => {
      if (destination === undefined) return;
      const d = destination;
      await new Promise<void>((resolve, reject) => {
        d.once('close', () => resolve());
        d.once('error', reject);
        d.end();
      });
    },
  };
}

/** A logger that builds the real one (and its children, with their bindings) on its first line. */
function lazyLogger(real: () => Logger): RunLogger {
  let logger: Logger | undefined;
  const get = (): Logger => (logger ??= real());
  // Arguments passed on as given (pino reads a string first argument as the message).
  type Args = Parameters<StrategyLogger['info']>;
  const call = (level: 'debug' | 'info' | 'warn' | 'error', args: Args): void => {
    const l = get();
    (l[level] as (...a: Args) => void).apply(l, args);
  };
  return {
    debug: (...args) => call('debug', args),
    info: (...args) => call('info', args),
    warn: (...args) => call('warn', args),
    error: (...args) => call('error', args),
    child: (bindings) => lazyLogger(() => get().child(bindings)),
  };
}

import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import pino from 'pino';
import { createLogger, type Logger } from '../log/logger';

/** The `ctx.log` of a backtest, written to a file beside the report. */
export interface RunLog {
  /** A logger stamping lines with the run's simulated time (the replay passes its clock). */
  readonly factory: (nowMs: () => number) => Logger;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

/**
 * Opens (truncates) `file` for a backtest's log: JSON lines as the daemon writes them (pino, same
 * redaction), at level debug so an author's debug output is kept, `time` = the simulated time. The
 * host logs each strategy failure there too, with its stack.
 */
export async function openRunLog(file: string): Promise<RunLog> {
  await mkdir(dirname(file), { recursive: true });
  const destination = pino.destination({ dest: file, sync: false, minLength: 8 * 1024, append: false });
  await new Promise<void>((resolve, reject) => {
    destination.once('ready', () => resolve());
    destination.once('error', reject);
  });
  return {
    factory: (nowMs) => createLogger({ level: 'debug', destination, time: nowMs, base: { run: 'backtest' } }),
    close: () => new Promise<void>((resolve, reject) => {
      destination.once('close', () => resolve());
      destination.once('error', reject);
      destination.end();
    }),
  };
}

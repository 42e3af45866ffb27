import * as path from 'node:path';
import type { FrozenConfig } from '../config/load';

// The daemon's directories, apart from the wiring that uses them: CLI commands find a daemon's files
// without loading its parts (metrics, stores, strategy hosts).

/** Where the kept strategy sources, the version control files and (without Redis) the trading state live. */
export function strategyStateDir(config: FrozenConfig, baseDir: string): string {
  return path.resolve(baseDir, config.strategies.stateDir);
}

/**
 * Where the trading state lives without Redis: files in the strategies' state directory, beside the
 * strategy control files, so `tradebot pause|resume` (run from the same directory) reaches the daemon.
 */
export function tradingStateDir(config: FrozenConfig, baseDir: string): string {
  return path.join(strategyStateDir(config, baseDir), 'control');
}

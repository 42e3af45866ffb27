import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The real recorded candles live in `shared/data` beside the repository (CI clones the repo with
 * shared/ next to it). Found in this order: $TRADEBOT_SHARED_DATA_DIR, `<repo>/../shared/data`,
 * `/work/shared/data`. A missing directory is a clear error, not a silent skip.
 */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export function sharedDataDir(): string {
  const candidates = [process.env['TRADEBOT_SHARED_DATA_DIR'], resolve(repoRoot(), '../shared/data'), '/work/shared/data'];
  const found = candidates.find((dir): dir is string => dir !== undefined && existsSync(dir));
  if (found === undefined) {
    throw new Error(`shared candle data not found; looked in ${candidates.filter(Boolean).join(', ')} (set TRADEBOT_SHARED_DATA_DIR)`);
  }
  return found;
}

export function sharedDataFile(name: string): string {
  return join(sharedDataDir(), name);
}

import { readFileSync } from 'node:fs';
import * as path from 'node:path';

let cached: string | undefined;

/**
 * The version in tradebot's package.json, found by walking up from the compiled file (dist/src/cli)
 * or the source (src/cli): `tradebot --version` and tradebot_build_info report the same one.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tradebot' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // no package.json here: keep walking up
    }
    if (path.dirname(dir) === dir) return (cached = 'unknown');
  }
}

import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Transpiled strategy sources kept on disk by the hash of what produced them (source, file, sucrase's
 * version and options), so a run whose strategy did not change neither loads sucrase nor transpiles
 * (~0.1-0.2 s of a backtest's start). Lives in the project's `node_modules/.cache/tradebot/`, as
 * other tools keep theirs; an unwritable folder only means no cache. A hit is exactly what sucrase
 * returned for the same input, so results never depend on the cache.
 */
export class TranspileCache {
  constructor(private readonly dir: string, private readonly toolVersion: string) {}

  /** The cache of the project at `repoRoot`, for sucrase as installed there; undefined when sucrase's version cannot be read. */
  static forProject(repoRoot: string): TranspileCache | undefined {
    try {
      const pkg = JSON.parse(readFileSync(require.resolve('sucrase/package.json'), 'utf8')) as { version?: unknown };
      if (typeof pkg.version !== 'string') return undefined;
      return new TranspileCache(path.join(repoRoot, 'node_modules', '.cache', 'tradebot', 'strategies'), `sucrase@${pkg.version}`);
    } catch {
      return undefined;
    }
  }

  keyOf(file: string, source: string, options: string): string {
    return createHash('sha256').update(`${this.toolVersion}\0${options}\0${file}\0${source}`).digest('hex');
  }

  get(key: string): string | undefined {
    try {
      return readFileSync(path.join(this.dir, `${key}.js`), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Written to a temporary name of its own (sweep workers share the pid), then renamed: a reader never sees half a file. */
  set(key: string, code: string): void {
    const tmp = path.join(this.dir, `${key}.${process.pid}.${randomUUID()}.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, code);
      renameSync(tmp, path.join(this.dir, `${key}.js`));
    } catch {
      // No cache (read-only install, full disk): transpiling again next time is the only cost.
      try {
        rmSync(tmp, { force: true });
      } catch {
        // The folder itself is unusable: nothing was left in it.
      }
    }
  }
}

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { TranspileCache } from './transpile-cache';
import { sha256Text } from './strategy-version';

/**
 * Runs a strategy file (TypeScript or JavaScript) as a CommonJS module without a build step.
 *
 * The file is transpiled with sucrase (types are erased, not checked: `npm run typecheck` checks the
 * repo's strategies; ESM import/export become CommonJS) and evaluated with its own `require`, which:
 * - maps the SDK, `tradebot/strategy`, to the copy of src/strategy/strategy that is RUNNING
 *   (`src/*.ts` under ts-jest, `dist/src/*.js` after `npm run build`), wherever the module lives:
 *   a strategy shares the host's module instances (one Decimal class, one zod);
 * - REFUSES the daemon's internals: any other `tradebot/...` path, and any file of the project's
 *   `src/` or `dist/` (`../src/exchange/...`), with an InternalImportError naming the import. A
 *   strategy talks to the daemon through its context and intents only (docs/strategies.md);
 * - loads other relative `.ts`/`.js` files (e.g. a `_shared.ts` helper next to the strategy) the
 *   same way, cached per evaluator;
 * - resolves packages (`technicalindicators`, `decimal.js`, `zod`) from the project first, then
 *   from the strategy's own directory.
 * The refusal makes a mistake obvious; it is not the security boundary: the daemon runs strategies
 * in sandboxed guest processes that hold nothing worth reaching.
 */

/** The folder holding the running project sources: `<repo>/src` or `<repo>/dist/src`. */
const RUNNING_SRC = path.resolve(__dirname, '..');
const RUNNING_FROM_DIST = path.basename(path.dirname(RUNNING_SRC)) === 'dist';
const REPO_ROOT = RUNNING_FROM_DIST ? path.resolve(RUNNING_SRC, '..', '..') : path.resolve(RUNNING_SRC, '..');
/** Where the TypeScript sources live (what strategies in `strategies/` import relatively). */
const SOURCE_SRC = path.join(REPO_ROOT, 'src');
/** The compiled output (`dist/`): as internal as the sources. */
const DIST = path.join(REPO_ROOT, 'dist');
/** The one import of the project a strategy may use. */
export const SDK_MODULE = 'tradebot/strategy';
const SDK_PATH = 'strategy/strategy';
const EXTENSIONS = ['.ts', '.js', '/index.ts', '/index.js'];
const SUCRASE_OPTIONS = { transforms: ['typescript', 'imports'] as ('typescript' | 'imports')[] };

type ModuleRecord = { exports: unknown };

export class ModuleEvaluator {
  private readonly cache = new Map<string, ModuleRecord>();
  /** SHA-256 of the source of every file evaluated. */
  private readonly hashes = new Map<string, string>();
  /** The local files (not packages, not the project's sources) each file imported. */
  private readonly imports = new Map<string, Set<string>>();
  private sucrase: typeof import('sucrase') | undefined;
  private transpiled: TranspileCache | undefined | null = null;

  /** Evaluates `file` and returns its `module.exports`. Throws whatever loading or evaluation throws. */
  load(file: string): unknown {
    const abs = path.resolve(file);
    const cached = this.cache.get(abs);
    if (cached !== undefined) return cached.exports;
    const record: ModuleRecord = { exports: {} };
    // Cached before running so an import cycle between helper files sees partial exports, as in Node.
    this.cache.set(abs, record);
    try {
      const source = readFileSync(abs, 'utf8');
      this.hashes.set(abs, sha256Text(source));
      const code = this.transpile(abs, source);
      // The function's header on the code's first line (not `new Function`, whose two header lines put
      // every frame of a strategy two lines below the real one): stack frames name the file's own lines
      // (only columns on line 1, sucrase's prelude, are shifted). Indirect eval: global scope, this realm.
      const wrapper = (0, eval)(`(function (exports, require, module, __filename, __dirname) {${code}\n})\n//# sourceURL=${abs}`) as (...args: unknown[]) => void;
      wrapper.call(record.exports, record.exports, this.requireFor(abs), record, abs, path.dirname(abs));
    } catch (err) {
      this.cache.delete(abs);
      throw err;
    }
    return record.exports;
  }

  /**
   * `file` and every local file it imports (directly or not), with the SHA-256 of their source, `file`
   * first: what the strategy's behaviour depends on besides the project itself (a backtest report
   * shows it as the strategy's version). Empty when `file` was not loaded by this evaluator.
   */
  sourcesOf(file: string): { file: string; sha256: string }[] {
    const out: { file: string; sha256: string }[] = [];
    const visit = (f: string): void => {
      const sha256 = this.hashes.get(f);
      if (sha256 === undefined || out.some((o) => o.file === f)) return;
      out.push({ file: f, sha256 });
      for (const dep of this.imports.get(f) ?? []) visit(dep);
    };
    visit(path.resolve(file));
    return out;
  }

  private transpile(file: string, source: string): string {
    // sucrase, not typescript's transpileModule: it loads in ~0.1 s instead of ~0.5 s (a backtest of a
    // month runs in less), strips types the same way and keeps every line where it was, so stack
    // traces point at the strategy's own lines without a source map.
    if (this.transpiled === null) this.transpiled = TranspileCache.forProject(REPO_ROOT);
    const key = this.transpiled?.keyOf(file, source, JSON.stringify(SUCRASE_OPTIONS));
    const hit = key === undefined ? undefined : this.transpiled?.get(key);
    if (hit !== undefined) return hit;
    this.sucrase ??= require('sucrase') as typeof import('sucrase');
    try {
      const code = this.sucrase.transform(source, { ...SUCRASE_OPTIONS, filePath: file }).code;
      if (key !== undefined) this.transpiled?.set(key, code);
      return code;
    } catch (err) {
      // sucrase reports "Unexpected token (3:15)"; the file and line are what an author needs.
      const loc = (err as { loc?: { line: number; column: number } }).loc;
      throw new SyntaxError(`${loc ? `line ${loc.line}:${loc.column + 1}: ` : ''}${(err as Error).message.replace(/ \(\d+:\d+\)$/, '')}`, { cause: err });
    }
  }

  private requireFor(file: string): (request: string) => unknown {
    const own = createRequire(file);
    return (request: string): unknown => {
      if (request === SDK_MODULE) return require(path.join(RUNNING_SRC, SDK_PATH));
      if (request === 'tradebot' || request.startsWith('tradebot/')) throw internalImport(request, file, `${request} is not part of the SDK`);
      if (request.startsWith('.') || path.isAbsolute(request)) {
        const target = path.resolve(path.dirname(file), request);
        const inside = relativeInside(SOURCE_SRC, target) ?? relativeInside(DIST, target);
        if (inside !== undefined) throw internalImport(request, file, `${path.relative(REPO_ROOT, target)} is a daemon internal`);
        const resolved = resolveFile(target);
        if (resolved === undefined) throw moduleNotFound(request, file);
        let deps = this.imports.get(file);
        if (deps === undefined) this.imports.set(file, (deps = new Set()));
        deps.add(resolved);
        if (resolved.endsWith('.json')) {
          this.hashes.set(resolved, sha256Text(readFileSync(resolved, 'utf8')));
          return own(resolved);
        }
        return this.load(resolved);
      }
      try {
        return require(request);
      } catch (err) {
        if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
        return own(request);
      }
    };
  }
}

function relativeInside(dir: string, target: string): string | undefined {
  const rel = path.relative(dir, target);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
}

/**
 * A strategy module imported a part of the daemon other than the SDK. `request` is the import as
 * written, `file` the module that wrote it.
 */
export class InternalImportError extends Error {
  override readonly name = 'InternalImportError';
  constructor(readonly request: string, readonly file: string, why: string) {
    super(`${path.basename(file)} imports '${request}' (${why}): a strategy may import '${SDK_MODULE}', packages and its own helper files only`);
  }
}

function internalImport(request: string, file: string, why: string): InternalImportError {
  return new InternalImportError(request, file, why);
}

function resolveFile(target: string): string | undefined {
  if (isFile(target)) return target;
  for (const ext of EXTENSIONS) if (isFile(target + ext)) return target + ext;
  return undefined;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false; // absent, or outside what a guest may read (Node's permission model throws)
  }
}

function moduleNotFound(request: string, file: string): Error {
  const err = new Error(`Cannot find module '${request}' from '${file}'`) as Error & { code: string };
  err.code = 'MODULE_NOT_FOUND';
  return err;
}

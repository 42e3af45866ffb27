import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { SDK_MODULE } from '../../../src/strategy/module-evaluator';

/**
 * The SDK's published type declarations ('tradebot/strategy', package.json exports "types"), as a
 * strategy author's editor shows them: every import path in them (code, `import()` types, doc
 * comments) is one docs/strategies.md allows a strategy to import, and strategies written as the docs
 * show type-check against them with tsc, in a project outside this repository that installed the
 * package. Needs `npm run build` (the declarations are built, not in the repository).
 */
const ROOT = resolve(__dirname, '../../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types?: string } | string>;
  dependencies: Record<string, string>;
};
const DOC = readFileSync(join(ROOT, 'docs/strategies.md'), 'utf8');

function declarationsFile(): string {
  const entry = PKG.exports['./strategy'];
  if (typeof entry !== 'object' || entry.types === undefined) throw new Error("package.json exports['./strategy'] has no types");
  return join(ROOT, entry.types);
}

/** The package a bare specifier names: `zod`, `@scope/name`, `decimal.js` of `decimal.js/decimal`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Why docs/strategies.md ("Imports") refuses `specifier` in a strategy, or undefined when it allows it:
 * the SDK itself and the packages installed with it. A relative or absolute path out of the
 * declarations is a daemon file (src/ or dist/), and so is any other `tradebot` path.
 */
function refusal(specifier: string, dependencies: readonly string[]): string | undefined {
  if (specifier === SDK_MODULE) return undefined;
  if (specifier.startsWith('.') || specifier.startsWith('/')) return 'a path into the daemon';
  const pkg = packageOf(specifier);
  if (pkg === 'tradebot') return `${specifier} is not part of the SDK`;
  if (!dependencies.includes(pkg)) return `${pkg} is not installed with tradebot (not in its dependencies)`;
  return undefined;
}

/**
 * Every module path the text names: the compiler's view (imports, exports, `import()` types, triple-
 * slash references) and what doc comments show in a hover (`from '...'`, `require('...')`).
 */
function modulePaths(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const fromCode = [...info.importedFiles, ...info.referencedFiles, ...info.typeReferenceDirectives].map((f) => f.fileName);
  const fromComments = [...text.matchAll(/(?:\bfrom\s+|\b(?:import|require)\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return [...new Set([...fromCode, ...fromComments])];
}

function refusedPaths(text: string): string[] {
  const deps = Object.keys(PKG.dependencies);
  return modulePaths(text).flatMap((p) => {
    const why = refusal(p, deps);
    return why === undefined ? [] : [`${p} (${why})`];
  });
}

/** The first fenced TypeScript block after the heading `title` of docs/strategies.md. */
function docBlockAfter(title: string): string {
  const at = DOC.indexOf(`\n${title}\n`);
  const m = at < 0 ? null : /```ts\n([\s\S]*?)```/.exec(DOC.slice(at));
  if (m === null) throw new Error(`docs/strategies.md has no ts block under "${title}"`);
  return m[1]!;
}

/** The doc's import line of the SDK ("Imports: the SDK"): every name it lists must be importable. */
function docImportLine(): string {
  const m = /^import \{[^}]*\} from 'tradebot\/strategy';$/m.exec(DOC.slice(DOC.indexOf('### Imports: the SDK')));
  if (m === null) throw new Error("docs/strategies.md has no import line under 'Imports: the SDK'");
  return m[0];
}

/** Every name src/strategy/strategy.ts exports (values and types): what the SDK promises. */
function sdkSourceExports(): string[] {
  const file = join(ROOT, 'src/strategy/strategy.ts');
  const program = ts.createProgram([file], { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(symbol).map((s) => s.name);
}

beforeAll(() => {
  if (!existsSync(declarationsFile())) throw new Error(`run "npm run build" first: ${declarationsFile()} is built`);
});

describe('the refused-path check itself', () => {
  test.each([
    ["import type { MarketInfo } from '../domain/market';", '../domain/market'],
    ["export type X = import('../../src/domain/candle').Candle;", '../../src/domain/candle'],
    [" *   import { defineStrategy } from '../src/strategy/strategy';", '../src/strategy/strategy'],
    ["import { loadConfig } from 'tradebot/dist/src/config/load';", 'tradebot/dist/src/config/load'],
    ['/// <reference path="./domain/order.d.ts" />', './domain/order.d.ts'],
  ])('finds what the docs refuse: %s', (line, path) => {
    expect(refusedPaths(line).join('\n')).toContain(path);
  });

  test('lets the SDK and tradebot\'s own dependencies through', () => {
    expect(refusedPaths("import { z } from 'zod';\nimport D from 'decimal.js';\nexport type T = typeof import('technicalindicators');\nimport { x } from 'tradebot/strategy';")).toEqual([]);
  });
});

test('the built declarations name no import path a strategy may not import: one file, packages only', () => {
  const text = readFileSync(declarationsFile(), 'utf8');
  expect(refusedPaths(text)).toEqual([]);
  expect(modulePaths(text).sort()).toEqual(['decimal.js', 'technicalindicators', 'zod']);
  // Nothing beside it for a go-to-definition to land in (stale per-file declarations included).
  expect(readdirSync(join(ROOT, 'dist/types'))).toEqual(['strategy.d.ts']);
});

describe("strategies written as the docs show type-check against the built declarations (installed as 'tradebot')", () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'tb-sdk-types-'));
    // What `npm i -D /path/to/tradebot` leaves: a link to the package folder.
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(ROOT, join(project, 'node_modules/tradebot'), 'dir');
    writeFileSync(join(project, 'my-sma.ts'), docBlockAfter('## Minimal example'));
    copyFileSync(join(ROOT, 'test/fixtures/strategies-docs/dip-oco.ts'), join(project, 'dip-oco.ts'));
    for (const f of readdirSync(join(ROOT, 'strategies')).filter((n) => n.endsWith('.ts'))) {
      copyFileSync(join(ROOT, 'strategies', f), join(project, f));
    }
    writeFileSync(join(project, 'doc-import-line.ts'), `${docImportLine()}\nexport type Used = [typeof defineStrategy, typeof Decimal, typeof z, Intent, StrategyContext];\n`);
    const sdk = sdkSourceExports();
    expect(sdk).toEqual(expect.arrayContaining(['defineStrategy', 'Decimal', 'z', 'StrategyContext', 'StrategyDefinition', 'Candle', 'Intent', 'OcoIntent', 'MarketInfo', 'OrderEvent']));
    // A name the declarations lack fails with TS2305 (no exported member).
    writeFileSync(join(project, 'every-export.ts'), `export type { ${sdk.join(', ')} } from 'tradebot/strategy';\n`);
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  test.each(['node16', 'bundler'])('with "moduleResolution": "%s"', (resolution) => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: resolution === 'node16' ? 'node16' : 'preserve',
          moduleResolution: resolution,
          target: 'ES2022',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          // Once, the declarations themselves are checked too (a .d.ts is "lib" to tsc; checking
          // the packages' typings with them is most of the run's time).
          skipLibCheck: resolution !== 'node16',
          types: [],
        },
        include: ['*.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--listFiles'], { encoding: 'utf8' });
    const files = tsc.stdout.split('\n').filter((l) => l.startsWith('/'));
    const errors = tsc.stdout.split('\n').filter((l) => / error TS\d+/.test(l));
    expect(errors).toEqual([]);
    expect(tsc.status).toBe(0);
    // The SDK came from the built declarations, and nothing of the daemon's sources came with it.
    expect(files).toContain(declarationsFile());
    expect(files.filter((f) => f.startsWith(`${ROOT}/src/`) || (f.startsWith(`${ROOT}/dist/`) && f !== declarationsFile()))).toEqual([]);
  }, 60_000);
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * The structure check of `npm test` (`npm run lint:deps`: dependency-cruiser with
 * .dependency-cruiser.cjs) fails on an import cycle and on an arrow that runs up the layers, and passes a
 * tree that keeps the rules: the project's own config over tiny trees. That the project itself passes
 * is the check itself, run by `npm test` before Jest (test/helpers/build-and-lint.js), not again here.
 */
const ROOT = path.resolve(__dirname, '../../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

function cruise(cwd: string, ...targets: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [DEPCRUISE, ...targets, '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

let tree: string;
beforeEach(() => {
  tree = mkdtempSync(path.join(tmpdir(), 'tb-structure-'));
  writeFileSync(path.join(tree, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs' }, include: ['src'] }));
});
afterEach(() => rmSync(tree, { recursive: true, force: true }));

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
  writeFileSync(path.join(tree, file), text);
}

// One tree with both faults: each dependency-cruiser run costs seconds of a CI core.
test('an import cycle and an arrow up the layers each fail the check, naming the files and the rule', () => {
  write('src/domain/a.ts', "import { b } from './b';\nexport const a = (): number => b() + 1;\n");
  write('src/domain/b.ts', "import type { a } from './a';\nexport const b = (): number => 1;\nexport type A = typeof a;\n");
  write('src/exchange/nonce-source.ts', 'export interface NonceSource { nextNonce(): Promise<number> }\n');
  write('src/store/redis-nonce-source.ts', "import type { NonceSource } from '../exchange/nonce-source';\nexport type S = NonceSource;\n");
  const r = cruise(tree, 'src');
  expect(r.status).not.toBe(0);
  expect(r.out).toMatch(/error no-circular: src\/domain\/a\.ts →\s+src\/domain\/b\.ts →\s+src\/domain\/a\.ts/);
  expect(r.out).toContain('error layer-store: src/store/redis-nonce-source.ts → src/exchange/nonce-source.ts');
});

test('a tree that keeps the rules passes', () => {
  write('src/domain/a.ts', 'export const a = 1;\n');
  write('src/store/b.ts', "import { a } from '../domain/a';\nexport const b = a + 1;\n");
  const r = cruise(tree, 'src');
  expect(r.out).toContain('no dependency violations found');
  expect(r.status).toBe(0);
});

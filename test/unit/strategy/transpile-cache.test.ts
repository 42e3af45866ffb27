import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TranspileCache } from '../../../src/strategy/transpile-cache';
import { ModuleEvaluator } from '../../../src/strategy/module-evaluator';

test('a transpiled source is found again by source, file, tool version and options; anything else misses', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'transpile-cache-'));
  const cache = new TranspileCache(dir, 'sucrase@1');
  const key = cache.keyOf('/a.ts', 'const x: number = 1;', '{}');
  expect(cache.get(key)).toBeUndefined();
  cache.set(key, 'const x = 1;');
  expect(cache.get(key)).toBe('const x = 1;');
  expect(readdirSync(dir)).toEqual([`${key}.js`]); // no temporary file left behind
  expect(new Set([
    key, cache.keyOf('/a.ts', 'const x: number = 2;', '{}'), cache.keyOf('/b.ts', 'const x: number = 1;', '{}'),
    cache.keyOf('/a.ts', 'const x: number = 1;', '{"x":1}'), new TranspileCache(dir, 'sucrase@2').keyOf('/a.ts', 'const x: number = 1;', '{}'),
  ]).size).toBe(5);
});

test('an unwritable cache folder only means no cache', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'transpile-cache-')), 'a-file');
  writeFileSync(file, '');
  const cache = new TranspileCache(path.join(file, 'sub'), 'sucrase@1');
  cache.set('k', 'code');
  expect(cache.get('k')).toBeUndefined();
});

test('a module evaluated from the cache behaves as one transpiled afresh', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'transpile-eval-'));
  const file = path.join(dir, `m${process.pid}-${Date.now()}.ts`);
  writeFileSync(file, 'interface P { a: number }\nexport const value = ((p: P) => p.a * 2)({ a: 21 });\n');
  const first = new ModuleEvaluator().load(file) as { value: number };
  const second = new ModuleEvaluator().load(file) as { value: number };
  expect(first.value).toBe(42);
  expect(second.value).toBe(42);
});

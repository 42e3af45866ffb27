import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('every error code in the sources is documented in the README error table', () => {
  const codes = new Set(sourceFiles('src').flatMap((file) => readFileSync(file, 'utf8').match(/TB_ERR_[A-Z_]+/g) ?? []));
  expect(codes.size).toBeGreaterThan(10);
  const readme = readFileSync('README.md', 'utf8');
  const undocumented = [...codes].filter((code) => !readme.includes(`\`${code}\``));
  expect(undocumented).toEqual([]);
});

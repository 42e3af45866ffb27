import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { dropSnapshot, isKept, keep, keptDir, snapshot } from '../../../src/strategy-control/kept-sources';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tb-kept-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a version is kept once as a copy; later edits of the strategy directory do not change it; a state dir inside the strategy dir is not copied into itself', () => {
  const strategies = path.join(dir, 'strategies');
  const stateDir = path.join(strategies, '.state');
  mkdirSync(strategies);
  writeFileSync(path.join(strategies, 'a.js'), 'v1');
  const copy = snapshot(strategies, stateDir);
  writeFileSync(path.join(strategies, 'a.js'), 'v2'); // edited after the reload read it
  const kept = keep(copy, stateDir, 'a', 'aaaaaaaaaaaa');
  dropSnapshot(copy);
  expect(kept).toBe(keptDir(stateDir, 'a', 'aaaaaaaaaaaa'));
  expect(readFileSync(path.join(kept, 'a.js'), 'utf8')).toBe('v1');
  expect(existsSync(path.join(kept, '.state'))).toBe(false);
  expect(isKept(stateDir, 'a', 'aaaaaaaaaaaa')).toBe(true);
  // Kept once: a second keep of the same version leaves the first copy.
  expect(keep(strategies, stateDir, 'a', 'aaaaaaaaaaaa')).toBe(kept);
  expect(readFileSync(path.join(kept, 'a.js'), 'utf8')).toBe('v1');
});

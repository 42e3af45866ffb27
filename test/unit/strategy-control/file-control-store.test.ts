import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileStrategyControlStore } from '../../../src/strategy-control/file-control-store';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tb-control-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('promoted versions are kept per strategy; requests are taken once, oldest first; replies are read back', async () => {
  const store = new FileStrategyControlStore(dir);
  expect(await store.readPromoted()).toEqual({});
  await store.writePromoted('a', { version: 'aaaaaaaaaaaa', atMs: 1, by: 'promote' });
  await store.writePromoted('b', { version: 'bbbbbbbbbbbb', atMs: 2, by: 'reload' });
  await store.writePromoted('a', { version: 'cccccccccccc', atMs: 3, by: 'rollback' });
  expect(await new FileStrategyControlStore(dir).readPromoted()).toEqual({
    a: { version: 'cccccccccccc', atMs: 3, by: 'rollback' }, b: { version: 'bbbbbbbbbbbb', atMs: 2, by: 'reload' },
  });
  await store.putRequest({ id: 'r2', command: 'promote', strategy: 'a', atMs: 20 });
  await store.putRequest({ id: 'r1', command: 'reload', atMs: 10 });
  writeFileSync(path.join(dir, 'requests', 'junk.json'), '{"command":"rm -rf"}');
  expect((await store.takeRequests()).map((r) => r.id)).toEqual(['r1', 'r2']);
  expect(await store.takeRequests()).toEqual([]);
  await store.putReply({ id: 'r1', ok: false, message: 'refused', atMs: 30 });
  expect(await store.readReply('r1')).toMatchObject({ ok: false, message: 'refused' });
  expect(await store.readReply('nope')).toBeUndefined();
});

test('a damaged promoted.json reads as nothing promoted (the modules on disk run), never a crash', async () => {
  writeFileSync(path.join(dir, 'promoted.json'), '{"a": {"version": "../../etc"}, "b": ');
  expect(await new FileStrategyControlStore(dir).readPromoted()).toEqual({});
  writeFileSync(path.join(dir, 'promoted.json'), '{"a": {"version": "not hex"}, "b": {"version": "0123456789ab", "atMs": 1}}');
  expect(await new FileStrategyControlStore(dir).readPromoted()).toEqual({ b: { version: '0123456789ab', atMs: 1, by: 'promote' } });
  expect(readFileSync(path.join(dir, 'promoted.json'), 'utf8')).toContain('not hex'); // read only
});

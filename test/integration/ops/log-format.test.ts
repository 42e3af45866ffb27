import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { linesWithDuplicateKeys } from '../../helpers/json-duplicate-keys';
import { paperConfig, requireBuild, writeConfig } from '../app/daemon-process';
import { MAIN, ROOT } from './ops-daemon';

/**
 * `log.pretty: auto` (the default): coloured text for a person at a terminal, JSON lines for pm2,
 * Docker, Kubernetes and pipes. The terminal is a real pseudo-terminal from util-linux `script`.
 * The daemon starts, logs a few lines and stops at once (no strategy module in an empty dir: exit 78).
 */
let config: ReturnType<typeof writeConfig>;
beforeAll(() => {
  requireBuild();
  config = writeConfig(paperConfig({ strategies: { dir: path.join(ROOT, 'test/fixtures'), enabled: [{ name: 'nope' }] } }));
});
afterAll(() => config.cleanup());

const command = (): string[] => [process.execPath, MAIN, 'run', '--config', config.file];

test('on a terminal the daemon logs coloured text', () => {
  const line = command().map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('script', ['-q', '-e', '-c', line, '/dev/null'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, TERM: 'xterm' } });
  expect(r.status).toBe(78);
  expect(r.stdout).toMatch(/start-up failed/);
  // eslint-disable-next-line no-control-regex -- the ESC of an ANSI colour code is the point
  expect(r.stdout).toMatch(/\u001b\[[0-9;]*m/); // ANSI colour
  expect(r.stdout.split('\n').filter((l) => l.trim().startsWith('{"level"'))).toEqual([]);
  // One line per event: every line starts with its time (no field continuation lines below it).
  // eslint-disable-next-line no-control-regex -- colour codes around the time
  const plain = r.stdout.replace(/\u001b\[[0-9;]*m/g, '').split(/\r?\n/).filter((l) => l.trim() !== '');
  expect(plain.length).toBeGreaterThan(2);
  expect(plain.filter((l) => !/^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: /.test(l))).toEqual([]);
});

test('through a pipe it logs JSON lines without duplicate keys', () => {
  const [node, ...args] = command();
  const r = spawnSync(node!, args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  expect(r.status).toBe(78);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines.length).toBeGreaterThan(2);
  for (const l of lines) expect(() => JSON.parse(l) as unknown).not.toThrow();
  expect(linesWithDuplicateKeys(r.stdout)).toEqual([]);
});

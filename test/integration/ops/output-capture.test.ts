import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LOG_DIR_ENV, scanDirectory } from '../../helpers/secret-scan';
import { requireBuild } from '../app/daemon-process';
import { ROOT } from './ops-daemon';

/**
 * The run-wide secret scan only works if child processes' output really lands in the capture
 * directory: a node child with the preload hook (as globalSetup configures it) is made to print a
 * planted secret through tradebot's pino logger (sonic-boom writes fd 1 directly), console.error
 * (an error message on stderr), process.stdout.write and a worker thread; the scan finds each one.
 * The child writes to a private capture directory, so the planted secret never reaches the run's.
 */
const PLANTED = 'planted-capture-secret-8d2f4a';
const HOOK = path.join(ROOT, 'test', 'helpers', 'tee-output.js');

const CHILD = `
const { createLogger } = require(${JSON.stringify(path.join(ROOT, 'dist/src/log/logger.js'))});
const { Worker } = require('node:worker_threads');
const log = createLogger({ level: 'info' });
log.info({ note: 'pino ${PLANTED}' }, 'line one');
log.info({ apiSecret: '${PLANTED}-redacted' }, 'redacted by the logger');
console.error(new Error('error message ${PLANTED}').message);
process.stdout.write(Buffer.from('buffer ${PLANTED}\\n'));
new Worker("console.log('worker ${PLANTED}')", { eval: true }).on('exit', () => log.flush());
`;

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(tmpdir(), 'tb-capture-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('every write path of a child process is copied to the capture directory, output unchanged, and the scan finds the planted secret', () => {
  const r = spawnSync(process.execPath, ['-e', CHILD], {
    cwd: ROOT, encoding: 'utf8', timeout: 20_000,
    env: { ...process.env, [LOG_DIR_ENV]: dir, NODE_OPTIONS: `--require ${JSON.stringify(HOOK)}` },
  });
  expect(r.status).toBe(0);
  const files = readdirSync(dir);
  expect(files).toHaveLength(1); // the worker thread prints through its parent: no second file
  const findings = scanDirectory(dir, { secrets: [PLANTED] });
  const excerpts = findings.map((f) => f.excerpt);
  for (const where of ['"note":"pino ', 'error message ', 'buffer ', 'worker ']) {
    expect([where, excerpts.filter((e) => e.includes(where)).length]).toEqual([where, 1]);
  }
  expect(findings).toHaveLength(4); // the apiSecret key was redacted by the logger: no hit
  expect(excerpts.join('\n')).not.toContain(PLANTED);
  // What the parent received is what the child wrote, copied once each.
  expect(r.stdout.split(PLANTED).length - 1).toBe(3);
  expect(r.stderr).toContain(`error message ${PLANTED}`);
});

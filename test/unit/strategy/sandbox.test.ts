import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GUEST_ISOLATION_LEVELS, isolationAtLeast, type GuestIsolationLevel } from '../../../src/domain/guest-isolation';
import { defaultIsolation, guestLaunch, readablePaths, strategyReadable } from '../../../src/strategy/guest/sandbox';
import { isStrategyFile } from '../../../src/strategy/strategy-loader';

/**
 * What a strategy guest may read (issue #29, finding 2: a guest could "read other strategies'
 * transpiled code in node_modules/.cache/tradebot/strategies"; at f3f3721 a guest's allow-list was
 * the whole strategy folder, `node_modules/*` and `dist/*`), and how it is launched.
 */
const REPO = path.resolve(__dirname, '..', '..', '..');
const CACHE = path.join(REPO, 'node_modules', '.cache', 'tradebot', 'strategies');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sandbox-test-'));
  writeFileSync(path.join(dir, 'a.ts'), 'export default {};\n// module a\n');
  writeFileSync(path.join(dir, 'b.ts'), 'export default {};\n// module b: a sibling strategy, its own secret sauce\n');
  writeFileSync(path.join(dir, '_helper.ts'), 'export const helper = 1;\n');
  writeFileSync(path.join(dir, 'data.json'), '{"table":[1,2,3]}\n');
  writeFileSync(path.join(dir, 'a.test.ts'), '// a test beside the module\n');
  mkdirSync(path.join(dir, 'lib'));
  writeFileSync(path.join(dir, 'lib', 'util.ts'), 'export const util = 2;\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether an allow-list entry lets a guest read `file` (a trailing `*` covers everything under its prefix). */
function covers(entry: string, file: string): boolean {
  return entry.endsWith('*') ? file.startsWith(entry.slice(0, -1)) : file === entry || file.startsWith(`${entry}/`);
}
const readableBy = (list: readonly string[], file: string): boolean => list.some((e) => covers(e, file));

describe('strategyReadable', () => {
  test('its own module, its helpers, data and sub-folders; never a sibling module', () => {
    const list = strategyReadable(path.join(dir, 'a.ts'));
    expect(list[0]).toBe(path.join(dir, 'a.ts'));
    // a.test.ts is not a strategy module for the loader, nor a helper or data: not readable either.
    expect(isStrategyFile('a.test.ts')).toBe(false);
    expect([...list].sort()).toEqual([
      path.join(dir, '_helper.ts'), path.join(dir, 'a.ts'), path.join(dir, 'data.json'), `${path.join(dir, 'lib')}/*`,
    ].sort());
    expect(readableBy(list, path.join(dir, 'lib', 'util.ts'))).toBe(true);
    expect(readableBy(list, path.join(dir, 'b.ts'))).toBe(false);
    expect(readableBy(list, dir)).toBe(false); // not the folder itself: no listing of the other modules
  });

  test('from b\'s side: b and the helpers, never a', () => {
    const list = strategyReadable(path.join(dir, 'b.ts'));
    expect(readableBy(list, path.join(dir, 'b.ts'))).toBe(true);
    expect(readableBy(list, path.join(dir, '_helper.ts'))).toBe(true);
    expect(readableBy(list, path.join(dir, 'a.ts'))).toBe(false);
  });

  test('a relative module path resolves; an unreadable folder gives the module alone', () => {
    const rel = path.relative(process.cwd(), path.join(dir, 'a.ts'));
    expect(strategyReadable(rel)).toEqual(strategyReadable(path.join(dir, 'a.ts')));
    expect(strategyReadable(path.join(dir, 'missing', 'x.ts'))).toEqual([path.join(dir, 'missing', 'x.ts')]);
  });
});

describe('readablePaths', () => {
  test('the daemon\'s code and installed packages; never the transpile cache, dist/strategies or the strategies folder', () => {
    const list = readablePaths([path.join(dir, 'a.ts')]);
    expect(list.some((e) => e.startsWith(path.join(REPO, 'node_modules', '.cache')))).toBe(false);
    for (const forbidden of [
      path.join(CACHE, 'someone-elses.js'), path.join(REPO, 'node_modules', '.cache', 'x'),
      path.join(REPO, 'dist', 'strategies', 'sma-cross.js'), path.join(REPO, 'strategies', 'sma-cross.ts'), path.join(REPO, '.env'),
      path.join(dir, 'b.ts'),
    ]) expect([forbidden, readableBy(list, forbidden)]).toEqual([forbidden, false]);
    for (const needed of [
      path.join(REPO, 'node_modules', 'decimal.js', 'package.json'), path.join(REPO, 'node_modules', 'zod', 'package.json'),
      path.join(REPO, 'node_modules', 'sucrase', 'register', 'ts.js'), path.join(REPO, 'src', 'strategy', 'strategy.ts'),
      path.join(REPO, 'package.json'), path.join(dir, 'a.ts'),
    ]) expect([needed, readableBy(list, needed)]).toEqual([needed, true]);
  });

  test('every installed package is there, one entry each', () => {
    const list = readablePaths([]);
    const packages = readdirSync(path.join(REPO, 'node_modules')).filter((n) => n !== '.cache');
    for (const name of packages) expect(readableBy(list, path.join(REPO, 'node_modules', name, 'index.js'))).toBe(true);
  });
});

describe('isolationAtLeast', () => {
  test('orders the levels weakest first: thread < permission < permission-net < namespaces', () => {
    expect(GUEST_ISOLATION_LEVELS).toEqual(['thread', 'permission', 'permission-net', 'namespaces']);
    const n = GUEST_ISOLATION_LEVELS.length;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) expect(isolationAtLeast(GUEST_ISOLATION_LEVELS[i]!, GUEST_ISOLATION_LEVELS[j]!)).toBe(i >= j);
    }
    expect(isolationAtLeast('permission', 'permission-net')).toBe(false);
    expect(isolationAtLeast('namespaces', 'permission-net')).toBe(true);
  });
});

describe('guestLaunch', () => {
  const readable = ['/srv/strategies/a.ts', '/srv/strategies/_helper.ts', '/srv/strategies/lib/*'];
  const NS_FLAGS = ['--user', '--map-root-user', '--pid', '--fork', '--kill-child', '--net', '--ipc'];
  const GRANTS = ['--allow-child-process', '--allow-worker', '--allow-addons', '--allow-wasi', '--allow-net', '--allow-fs-write'];

  /** The node arguments of a launch: what follows node's own path. */
  function nodeArgs(execPath: string, execArgv: readonly string[]): readonly string[] {
    if (execPath === process.execPath) return execArgv;
    const i = execArgv.indexOf(process.execPath);
    expect(i).toBeGreaterThanOrEqual(0);
    return execArgv.slice(i + 1);
  }

  test.each(['permission', 'namespaces'] as const)('%s: the permission model, one --allow-fs-read per path, no other grant', (level) => {
    if (level === 'namespaces' && defaultIsolation() !== 'namespaces') return; // this host cannot: resolveIsolation never asks
    const launch = guestLaunch(level, readable, 64);
    expect(launch.level).toBe(level);
    const args = nodeArgs(launch.execPath, launch.execArgv);
    const reads = args.filter((a) => a.startsWith('--allow-fs-read'));
    expect(reads).toEqual(readablePaths(readable).map((p) => `--allow-fs-read=${p}`));
    expect(reads.some((a) => a.includes(','))).toBe(false);
    for (const grant of GRANTS) expect(args.filter((a) => a.startsWith(grant))).toEqual([]);
    expect(args).toContain('--max-old-space-size=64');
    const flags = args.filter((a) => a === '--permission' || a === '--experimental-permission');
    expect(flags).toHaveLength(1);
    // The flag is one this Node knows: a node started with it and nothing else readable runs.
    const r = spawnSync(process.execPath, [flags[0]!, '-e', 'process.exit(typeof process.permission === "object" && !process.permission.has("fs.read", "/etc/hostname") ? 0 : 5)'], { env: {}, encoding: 'utf8', timeout: 10_000 });
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  test('unshare\'s namespace flags only for namespaces; setpriv (when installed) ties the guest to the daemon\'s life', () => {
    const perm = guestLaunch('permission', readable, 64);
    expect(perm.execArgv.filter((a) => NS_FLAGS.includes(a))).toEqual([]);
    expect([perm.execPath, ...perm.execArgv].some((a) => path.basename(a) === 'unshare')).toBe(false);
    if (path.basename(perm.execPath) === 'setpriv') expect(perm.execArgv.slice(0, 4)).toEqual(['--pdeathsig', 'KILL', '--no-new-privs', process.execPath]);
    else expect(perm.execPath).toBe(process.execPath);
    if (defaultIsolation() !== 'namespaces') return;
    const ns = guestLaunch('namespaces', readable, 64);
    const all = [ns.execPath, ...ns.execArgv];
    const unshare = all.findIndex((a) => path.basename(a) === 'unshare');
    const node = all.indexOf(process.execPath);
    expect(unshare).toBeGreaterThanOrEqual(0);
    expect(all.slice(unshare + 1, node)).toEqual(NS_FLAGS);
    // unshare, the guest's parent, starts with SIGHUP ignored; setpriv (when installed) right before it.
    expect(path.basename(ns.execPath)).toBe('nohup');
    const setpriv = all.findIndex((a) => path.basename(a) === 'setpriv');
    if (setpriv >= 0) expect(all.slice(setpriv, unshare)).toEqual([all[setpriv], '--pdeathsig', 'KILL', '--no-new-privs']);
  });
});

/**
 * A real guest process, launched as forkGuest launches one: it tries to read what another strategy
 * or the daemon keeps, and what it may read, and prints what happened.
 */
describe.each([...new Set<GuestIsolationLevel>([defaultIsolation(), 'permission'])])('a real guest at %s', (level) => {
  let cacheFile: string;
  let probe: string;
  beforeAll(() => {
    mkdirSync(CACHE, { recursive: true });
    cacheFile = path.join(CACHE, `sandbox-test-${process.pid}-${level}.js`);
    writeFileSync(cacheFile, '// another strategy, transpiled\n');
    probe = path.join(dir, `probe-${level}.js`);
    writeFileSync(probe, [
      "const fs = require('fs');",
      'const out = {};',
      'for (const p of process.argv.slice(2)) {',
      "  try { if (p.endsWith('/')) fs.readdirSync(p); else fs.readFileSync(p); out[p] = 'read'; } catch (e) { out[p] = e.code || String(e); }",
      '}',
      'out.pid = process.pid;',
      'out.env = Object.keys(process.env);',
      'process.stdout.write(JSON.stringify(out));',
    ].join('\n'));
  });
  afterAll(() => rmSync(cacheFile, { force: true }));

  test('reads its own module, helper, data and sub-folder, the SDK\'s packages; not a sibling, the folder, the cache, dist/strategies, strategies/', () => {
    if (level === 'thread') throw new Error('defaultIsolation() gave thread: no process guest on this host');
    const launch = guestLaunch(level, [...strategyReadable(path.join(dir, 'a.ts')), probe], 64);
    // dist/ exists once built (npm run build); a fresh clone's unit run has none to hide.
    const distDir = path.join(REPO, 'dist', 'strategies');
    const distStrategy = existsSync(distDir) ? readdirSync(distDir, { withFileTypes: true }).find((e) => e.isFile()) : undefined;
    const allowed = [path.join(dir, 'a.ts'), path.join(dir, '_helper.ts'), path.join(dir, 'data.json'), path.join(dir, 'lib', 'util.ts'), path.join(REPO, 'node_modules', 'decimal.js', 'package.json')];
    const denied = [
      path.join(dir, 'b.ts'), `${dir}/`, cacheFile, path.join(REPO, 'strategies', 'sma-cross.ts'), path.join(REPO, 'package-lock.json'),
      ...(distStrategy === undefined ? [] : [path.join(REPO, 'dist', 'strategies', distStrategy.name)]),
    ];
    const started = Date.now();
    const r = spawnSync(launch.execPath, [...launch.execArgv, probe, ...allowed, ...denied], { env: {}, encoding: 'utf8', timeout: 20_000 });
    expect([r.status, r.signal, r.stderr]).toEqual([0, null, '']);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.fromEntries(allowed.map((p) => [p, out[p]]))).toEqual(Object.fromEntries(allowed.map((p) => [p, 'read'])));
    expect(Object.fromEntries(denied.map((p) => [p, out[p]]))).toEqual(Object.fromEntries(denied.map((p) => [p, 'ERR_ACCESS_DENIED'])));
    // In its own PID namespace the guest is PID 1: no process outside is there to signal.
    if (level === 'namespaces') expect(out['pid']).toBe(1);
    // No environment, whatever runs before node (a shell there would export PWD of its own).
    expect(out['env']).toEqual([]);
    console.log(`guest at ${level}: ${Date.now() - started} ms`);
  });
});

test('hidden entries and editor copies stay closed: .git holds every strategy\'s history, .env secrets, b.ts.bak a sibling', () => {
  const d = mkdtempSync(path.join(tmpdir(), 'tradebot-sandbox-hidden-'));
  try {
    for (const f of ['a.ts', 'b.ts', 'b.ts.bak', '.env', '_shared.ts', 'prices.csv']) writeFileSync(path.join(d, f), 'x');
    mkdirSync(path.join(d, '.git'));
    const list = strategyReadable(path.join(d, 'a.ts'));
    expect([...list].sort()).toEqual([path.join(d, '_shared.ts'), path.join(d, 'a.ts'), path.join(d, 'prices.csv')].sort());
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

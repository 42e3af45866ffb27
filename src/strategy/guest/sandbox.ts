import { spawnSync } from 'node:child_process';
import { accessSync, constants as fsConstants, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { GuestIsolationChoice, GuestIsolationLevel } from '../../domain/guest-isolation';
import { isStrategyFile } from '../strategy-loader';

/** How a process guest starts: the executable and the arguments before the guest's entry script. */
export interface GuestLaunch {
  readonly execPath: string;
  readonly execArgv: readonly string[];
  readonly level: GuestIsolationLevel;
}

/** The running project: `<repo>/src` under ts-jest, `<repo>/dist/src` after the build. */
const RUNNING_SRC = path.resolve(__dirname, '..', '..');
const FROM_TS = path.extname(__filename) === '.ts';
const REPO_ROOT = FROM_TS ? path.resolve(RUNNING_SRC, '..') : path.resolve(RUNNING_SRC, '..', '..');
/** Transpiled strategies of every version live here (transpile-cache.ts): no guest reads another's. */
const CACHE_ENTRY = '.cache';

/**
 * The level a guest gets for a config choice on this host, or why the choice cannot be had. `auto`
 * takes the strongest this host allows (namespaces when it lets an unprivileged process create them:
 * not under Docker's default seccomp profile, for example).
 */
export function resolveIsolation(choice: GuestIsolationChoice): GuestIsolationLevel | { readonly problem: string } {
  if (choice === 'thread') return 'thread';
  const permission: GuestIsolationLevel = permissionCoversNetwork() ? 'permission-net' : 'permission';
  if (choice === 'permission') return permission;
  const ns = namespacesProblem();
  if (ns === undefined) return 'namespaces';
  if (choice === 'namespaces') return { problem: `guests in their own namespaces are not available on this host: ${ns}` };
  return permission;
}

/** The launch of a process guest at `level` that may read `readable` (files, or folders with everything under them). */
export function guestLaunch(level: Exclude<GuestIsolationLevel, 'thread'>, readable: readonly string[], heapMb: number): GuestLaunch {
  const nodeArgs = [
    ...(FROM_TS ? ['--require', 'sucrase/register/ts'] : []),
    permissionFlag(),
    // One flag per path: Node 20 does not split a comma list.
    ...readablePaths(readable).map((p) => `--allow-fs-read=${p}`),
    `--max-old-space-size=${heapMb}`, '--max-semi-space-size=16', '--no-warnings',
  ];
  const setpriv = tool('setpriv');
  if (level === 'namespaces') {
    const unshare = tool('unshare') as string;
    const inNamespaces = [unshare, ...UNSHARE_ARGS, process.execPath, ...nodeArgs];
    // setpriv: the kernel kills unshare (and, by --kill-child, the guest) when the daemon dies.
    const launch = setpriv === undefined ? inNamespaces : [setpriv, '--pdeathsig', 'KILL', '--no-new-privs', ...inNamespaces];
    const [execPath, ...execArgv] = ignoringHangup(launch);
    return { execPath: execPath as string, execArgv, level };
  }
  return setpriv === undefined
    ? { execPath: process.execPath, execArgv: nodeArgs, level }
    : { execPath: setpriv, execArgv: ['--pdeathsig', 'KILL', '--no-new-privs', process.execPath, ...nodeArgs], level };
}

/**
 * `command` started with SIGHUP ignored (nohup; a disposition exec keeps). unshare stays the guest's
 * parent: one that died of a SIGHUP sent to every process (systemd's SendSIGHUP) would take its guest
 * with it (--kill-child). SIGINT and SIGTERM it blocks itself while it waits for the guest. Node resets
 * the disposition in the guest, which ignores the stop signals itself (guest-life.ts). SIGKILL (the
 * host's kill, pdeathsig) still ends unshare. nohup leaves the (empty) environment and the non-terminal
 * stdio as they are.
 */
function ignoringHangup(command: readonly string[]): string[] {
  const nohup = tool('nohup');
  return nohup === undefined ? [...command] : [nohup, ...command];
}

/** A user namespace (so no privilege is needed), its own PID, network and IPC namespaces; the guest is PID 1 there. */
const UNSHARE_ARGS = ['--user', '--map-root-user', '--pid', '--fork', '--kill-child', '--net', '--ipc'];

/**
 * What a process guest may read: the daemon's running code (not `dist/strategies`, the compiled
 * copies of every strategy), every installed package but the transpile cache, and `readable`.
 */
export function readablePaths(readable: readonly string[]): string[] {
  const modules = path.join(REPO_ROOT, 'node_modules');
  let packages: string[] = [];
  try {
    packages = readdirSync(modules, { withFileTypes: true }).filter((e) => e.name !== CACHE_ENTRY).map((e) => (e.isDirectory() ? `${path.join(modules, e.name)}/*` : path.join(modules, e.name)));
  } catch {
    // No node_modules beside the code (a bundled install): the code's own folder is all there is.
  }
  return [`${RUNNING_SRC}/*`, path.join(REPO_ROOT, 'package.json'), ...packages, ...readable.map((p) => path.resolve(p))];
}

/**
 * What a strategy's guest may read of its folder: its own module file, the shared helpers (`_*`), data
 * files (`.json`, `.csv`) and sub-folders (its own packages, helper libraries); never another strategy's
 * module, a hidden entry (`.git` holds every strategy's history, `.env` secrets) or an editor's copy
 * (`b.ts.bak`). Read now: a helper added later is seen by the guests started after it (a reload).
 */
export function strategyReadable(moduleFile: string): string[] {
  const own = path.resolve(moduleFile);
  const dir = path.dirname(own);
  const out = [own];
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (full === own || e.name.startsWith('.')) continue;
      if (e.isDirectory()) out.push(`${full}/*`);
      else if (e.isFile() && !isStrategyFile(e.name) && (e.name.startsWith('_') || DATA_FILE.test(e.name))) out.push(full);
    }
  } catch {
    // An unreadable folder: the module alone (its load then says what is missing).
  }
  return out;
}

/** Data a strategy may ship beside its module. */
const DATA_FILE = /\.(json|csv)$/;

function permissionFlag(): string {
  // `--permission` from Node 22.13/23.5 on; Node 20 only knows the experimental spelling.
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

function permissionCoversNetwork(): boolean {
  return process.allowedNodeEnvironmentFlags.has('--allow-net');
}

const tools = new Map<string, string | null>();
/** util-linux's setpriv / unshare and coreutils' nohup (Linux; in every Debian image), when present and executable. */
function tool(name: 'setpriv' | 'unshare' | 'nohup'): string | undefined {
  if (!tools.has(name)) {
    tools.set(name, null);
    if (process.platform === 'linux') {
      for (const dir of ['/usr/bin', '/bin']) {
        try {
          accessSync(path.join(dir, name), fsConstants.X_OK);
          tools.set(name, path.join(dir, name));
          break;
        } catch {
          // not here
        }
      }
    }
  }
  return tools.get(name) ?? undefined;
}

let namespacesProbe: { problem: string | undefined } | undefined;
/**
 * Why guests cannot have namespaces here, or undefined when they can. Asked once per process, by
 * really starting node the way a guest starts (PID 1 of its namespace, no network reachable).
 */
export function namespacesProblem(): string | undefined {
  if (namespacesProbe !== undefined) return namespacesProbe.problem;
  let problem: string | undefined;
  const unshare = tool('unshare');
  if (process.platform !== 'linux') problem = `${process.platform} has no Linux namespaces`;
  else if (unshare === undefined) problem = 'util-linux unshare is not installed';
  else {
    const check = 'process.exit(process.pid === 1 && !Object.values(require("os").networkInterfaces()).flat().some((i) => !i.internal) ? 0 : 3)';
    const r = spawnSync(unshare, [...UNSHARE_ARGS, process.execPath, '-e', check], { env: {}, timeout: 10_000, encoding: 'utf8' });
    if (r.error !== undefined) problem = `unshare failed: ${r.error.message}`;
    else if (r.status !== 0) problem = `unshare ${UNSHARE_ARGS.join(' ')} refused (${(r.stderr || `exit ${String(r.status ?? r.signal)}`).trim().slice(0, 300)}); unprivileged user namespaces are off or a seccomp profile forbids them`;
  }
  namespacesProbe = { problem };
  return problem;
}

let auto: GuestIsolationLevel | undefined;
/** The strongest level this host gives a process guest (what `auto` resolves to). */
export function defaultIsolation(): GuestIsolationLevel {
  if (auto === undefined) {
    const r = resolveIsolation('auto');
    auto = typeof r === 'string' ? r : 'permission';
  }
  return auto;
}

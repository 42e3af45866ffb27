import { spawnSync } from 'node:child_process';

/**
 * The machine tools the tests use for real (no mocks): redis-server, a headless Chromium for the
 * HTML report, and Prometheus with promtool for the alert rules and the dashboard. `npm test` is
 * the README's one test command, so it provides them itself on a machine that has only Node and
 * npm: when a tool is missing and we are root with apt-get (Debian/Ubuntu, CI), the Debian package
 * is installed; otherwise the ONE line of `missingLine` says what to install, and the tests that
 * need the tool fail with it (never skipped as passed).
 */
export interface SystemTool {
  readonly name: string;
  /** Command run to prove the tool works (not just that a file exists). */
  readonly command: string;
  readonly probeArgs: readonly string[];
  readonly debianPackage: string;
  /** What else works, for the line printed when it is missing. */
  readonly otherwise: string;
}

export const REDIS_SERVER: SystemTool = {
  name: 'redis-server', command: 'redis-server', probeArgs: ['--version'], debianPackage: 'redis-server',
  otherwise: 'macOS: brew install redis; or set TRADEBOT_TEST_REDIS_URL to a disposable Redis',
};
export const CHROMIUM: SystemTool = {
  name: 'chromium', command: 'chromium', probeArgs: ['--headless', '--no-sandbox', '--version'], debianPackage: 'chromium',
  otherwise: 'or set TRADEBOT_CHROMIUM to a Chromium/Chrome binary',
};
export const PROMTOOL: SystemTool = {
  name: 'promtool', command: 'promtool', probeArgs: ['--version'], debianPackage: 'prometheus',
  otherwise: 'or put Prometheus 2.x (prometheus and promtool) on PATH',
};
export const OPENSSL: SystemTool = {
  name: 'openssl', command: 'openssl', probeArgs: ['version'], debianPackage: 'openssl',
  otherwise: 'macOS: brew install openssl (makes the throwaway certificates of the TLS test)',
};
export const PROMETHEUS: SystemTool = {
  name: 'prometheus', command: 'prometheus', probeArgs: ['--version'], debianPackage: 'prometheus',
  otherwise: 'or put Prometheus 2.x (prometheus and promtool) on PATH',
};

/** Environment variable through which globalSetup tells the test workers a tool is missing. */
export function missingEnv(tool: SystemTool): string {
  return `TRADEBOT_TEST_MISSING_${tool.name.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

/** The command to run for a tool (TRADEBOT_CHROMIUM overrides the browser). */
export function toolCommand(tool: SystemTool, env: NodeJS.ProcessEnv = process.env): string {
  return tool === CHROMIUM && env['TRADEBOT_CHROMIUM'] ? env['TRADEBOT_CHROMIUM'] : tool.command;
}

export function toolWorks(tool: SystemTool, env: NodeJS.ProcessEnv = process.env): boolean {
  const r = spawnSync(toolCommand(tool, env), [...tool.probeArgs], { stdio: 'ignore', timeout: 30_000, env });
  return r.status === 0;
}

/** The one line saying what to install. */
export function missingLine(tool: SystemTool): string {
  return `${tool.name} is missing and could not be installed here: install the Debian package ${tool.debianPackage} ` +
    `(sudo apt-get install -y ${tool.debianPackage}), ${tool.otherwise}`;
}

function canApt(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

// One apt attempt per package per process (promtool and prometheus share one).
const attempted = new Set<string>();

function aptInstall(pkg: string, log: (line: string) => void): void {
  if (attempted.has(pkg)) return;
  attempted.add(pkg);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): number | null => spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'ignore', env, timeout: 600_000 }).status;
  log(`tests: installing the Debian package ${pkg} (apt-get install ${pkg})`);
  if (install() === 0) return;
  // A fresh machine may not have the package lists yet.
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env, timeout: 600_000 });
  install();
}

/**
 * Makes sure a tool runs: already there, or installed from Debian when we are root with apt-get.
 * Returns the missing line when it still does not run.
 */
export function provideTool(tool: SystemTool, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): string | undefined {
  if (toolWorks(tool)) return undefined;
  if (!(tool === CHROMIUM && process.env['TRADEBOT_CHROMIUM']) && canApt()) {
    aptInstall(tool.debianPackage, log);
    if (toolWorks(tool)) return undefined;
  }
  return missingLine(tool);
}

/**
 * For a test's beforeAll: throws the missing line when globalSetup could not provide the tool (or,
 * outside a full run, when it does not run now). The test fails with exactly that line.
 */
export function requireTool(tool: SystemTool): string {
  const recorded = process.env[missingEnv(tool)];
  if (recorded) throw new Error(recorded);
  if (!toolWorks(tool)) throw new Error(missingLine(tool));
  return toolCommand(tool);
}

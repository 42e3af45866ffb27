import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';

/** The repository root and the built CLI (`npm test` builds before Jest runs). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');

export function requireBuild(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
}

/** A temp dir holding one config file; removed by cleanup(). */
export function writeConfig(config: Record<string, unknown>): { file: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-app-'));
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, stringify(config));
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** The daemon (or any CLI command) as a child process, its JSON log lines parsed as they come. */
export class DaemonProcess {
  readonly lines: LogLine[] = [];
  stderr = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: (() => void)[] = [];

  /**
   * `ownGroup`: the daemon leads its own process group, as under a terminal (Ctrl-C reaches the whole group).
   * `node`: another Node.js binary than the one running the tests (the Docker image's version).
   */
  constructor(args: readonly string[], env: NodeJS.ProcessEnv, opts: { readonly ownGroup?: boolean; readonly node?: string } = {}) {
    this.child = spawn(opts.node ?? process.execPath, [MAIN, ...args], {
      cwd: ROOT, env: { ...process.env, TRADEBOT_CONSOLE_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownGroup === true,
    });
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          this.lines.push(JSON.parse(text) as LogLine);
        } catch {
          this.lines.push({ level: 'raw', msg: text });
        }
      }
      this.notify();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => { this.stderr += chunk.toString('utf8'); });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => { this.notify(); resolve({ code, signal }); }));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Resolves with the first log line matching, failing after timeoutMs (or when the process exits first). */
  async waitForLine(match: (l: LogLine) => boolean, timeoutMs: number, what = 'log line'): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find(match);
      if (hit) return hit;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`process exited (${this.child.exitCode ?? this.child.signalCode}) before ${what}\nstderr: ${this.stderr}\nlast lines: ${this.tail()}`);
      }
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms\nlast lines: ${this.tail()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 200);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  count(match: (l: LogLine) => boolean): number {
    return this.lines.filter(match).length;
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  /** Signals the daemon's whole process group (its guests too), as a terminal's Ctrl-C does. Needs `ownGroup`. */
  signalGroup(sig: NodeJS.Signals): void {
    process.kill(-this.pid, sig);
  }

  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }

  /** SIGKILL if still running (test cleanup). */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  tail(n = 15): string {
    return this.lines.slice(-n).map((l) => JSON.stringify(l)).join('\n');
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Runs a CLI command to completion (synchronously). */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The test strategies (churn, churn-oco). Every daemon start describes each module of its strategy
 * directory in a guest process of its own, so the deliberately broken module lives apart and is
 * added only where a test wants it reported (strategiesWithBroken).
 */
export const TEST_STRATEGIES = path.join(ROOT, 'test/integration/app/strategies');

/** A directory with the test strategies and the broken module (removed when the process exits). */
export function strategiesWithBroken(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-strategies-'));
  for (const f of readdirSync(TEST_STRATEGIES)) copyFileSync(path.join(TEST_STRATEGIES, f), path.join(dir, f));
  copyFileSync(path.join(ROOT, 'test/integration/app/broken-strategy/broken.js'), path.join(dir, 'broken.js'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A paper config for tests: fast clock, the test strategies, metrics on a free port. */
export function paperConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mode: 'paper',
    paper: {
      speed: 600,
      markets: [{ market: 'BTC_USDT', data: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') }],
      balances: { USDT: '100000', BTC: '1' },
    },
    strategies: { dir: TEST_STRATEGIES, enabled: [{ name: 'churn' }] },
    risk: { defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' } },
    killSwitch: { enabled: false },
    reconcile: { intervalSeconds: 1 },
    polling: { balanceIntervalSeconds: 10 },
    metrics: { port: 0, host: '127.0.0.1' },
    log: { level: 'info' },
    shutdown: { graceMs: 5000 },
    ...overrides,
  };
}

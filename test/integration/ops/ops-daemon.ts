import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { formatFindings, saveCapture, scanText, TEST_SECRETS } from '../../helpers/secret-scan';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');

/** JSON log lines of a daemon, as parsed from its raw output. */
export interface LogLine { readonly level: string; readonly msg: string; readonly [key: string]: unknown }

export function parseLines(text: string): LogLine[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => {
    try {
      return JSON.parse(l) as LogLine;
    } catch {
      return { level: 'raw', msg: l };
    }
  });
}

/**
 * `node dist/src/main.js run` as a child process, keeping its raw stdout and stderr: the ops tests
 * check the exact bytes for secrets (a parsed-and-reprinted line could hide one).
 */
export class OpsDaemon {
  stdout = '';
  stderr = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: readonly string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (c: Buffer) => { this.stdout += c.toString('utf8'); });
    this.child.stderr!.on('data', (c: Buffer) => { this.stderr += c.toString('utf8'); });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  lines(): LogLine[] {
    return parseLines(this.stdout);
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.running) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  tail(n = 15): string {
    return this.stdout.trimEnd().split('\n').slice(-n).join('\n') + (this.stderr ? `\nstderr: ${this.stderr}` : '');
  }
}

/** Polls `probe` until it returns a value (not undefined); fails with `describe()` after timeoutMs. */
export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** GET on loopback; undefined while nothing listens. */
export async function httpGet(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

/**
 * Saves `text` for the run-wide teardown scan and fails now if it holds a test secret, a signature,
 * a generated secret or a signed payload: the test that leaked is the one that fails.
 */
export function expectNoSecrets(label: string, text: string, extraSecrets: readonly string[] = []): void {
  saveCapture(label, text);
  const findings = scanText(text, label, { secrets: [...TEST_SECRETS, ...extraSecrets] });
  if (findings.length > 0) throw new Error(`secrets in ${label}:\n${formatFindings(findings)}`);
}

/**
 * The console and notifications switched on for the ops daemons, so their metrics have series for
 * the dashboard and the alerts: a viewer token nobody holds, and a webhook told only of drift beyond
 * the allowed (none in these runs) at a port where nothing listens.
 */
/**
 * Guardrails for the ops tests (docs/risk.md): one of each kind, wide enough never to trip in a
 * healthy run (no alert pending), so their panels and TradebotRiskGuardActive have series.
 */
export const OPS_GUARDRAILS = {
  account: { drawdown: [{ max: '100000', window: '24h' }] },
  strategyDefaults: { cooldown: [{ losses: 1000, window: '6h', pause: '1h' }], drawdown: [{ max: '50000' }] },
  strategies: { churn: { budget: { share: '0.9' } } },
};

export const OPS_CONSOLE_AND_NOTIFICATIONS = {
  console: { enabled: true, port: 0, tokens: [{ name: 'ops', role: 'viewer', sha256: 'a'.repeat(64) }] },
  notifications: { enabled: true, events: ['drift'], channels: [{ type: 'webhook', name: 'ops', url: 'http://127.0.0.1:9/hook' }] },
};

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { DaemonProcess, paperConfig, requireBuild, ROOT, runCli, type LogLine } from './daemon-process';

/**
 * A live strategy that throws, in the paper daemon (a child process, no Redis: the control store is
 * files): one error line per failure naming the strategy file's own line and column, `tradebot
 * status` DEGRADED (exit 2) naming it with that reason, and `tradebot strategy-resume` resuming it.
 */
jest.setTimeout(60_000);

const FIXTURE = path.join(ROOT, 'test/fixtures/failing/oops.ts');
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;

/** Where oops.ts throws, as V8 reports it: the line of `throw new Error`, the column of `new`. */
function throwSite(): string {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes('throw new Error'));
  return `oops.ts:${i + 1}:${(lines[i] as string).indexOf('new Error') + 1}`;
}

let base: string;
let config: { file: string };
let daemon: DaemonProcess | undefined;

beforeAll(() => {
  requireBuild();
  base = mkdtempSync(path.join(tmpdir(), 'tradebot-oops-'));
  const dir = path.join(base, 'strategies');
  mkdirSync(dir);
  copyFileSync(FIXTURE, path.join(dir, 'oops.ts'));
  config = { file: path.join(base, 'config.yaml') };
  writeFileSync(config.file, stringify(paperConfig({
    strategies: { dir, stateDir: path.join(base, 'state'), enabled: [{ name: 'oops' }], maxConsecutiveFailures: 2 },
  })));
});

afterAll(async () => {
  await daemon?.kill();
  rmSync(base, { recursive: true, force: true });
});

function status(url: string): { code: number | null; stdout: string } {
  const r = runCli(['status', '--config', config.file, '--url', url], {});
  return { code: r.code, stdout: r.stdout };
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

test('a throwing strategy: one error line per failure with its file:line, status DEGRADED naming it, strategy-resume resumes it', async () => {
  const at = throwSite();
  daemon = new DaemonProcess(['run', '--config', config.file], {});
  await daemon.waitForLine(msg('strategy paused after repeated failures'), 30_000, 'the pause');
  const url = `http://127.0.0.1:${daemon.lines.find(msg('metrics server listening'))!['port'] as number}`;

  // Exactly one error line per failure (2 failures pause it), carrying where oops.ts threw and the message once.
  const errors = daemon.lines.filter((l) => l.level === 'error' && l['strategy'] === 'oops');
  expect(errors.map((l) => l.msg)).toEqual(['strategy failed', 'strategy failed']);
  for (const l of errors) {
    expect(l['at']).toBe(at);
    expect(l['error']).toMatch(/^oops: cannot trade at \d/);
    expect(JSON.stringify(l).match(/cannot trade at/g)).toHaveLength(1);
  }
  expect(daemon.lines.some((l) => JSON.stringify(l).includes('[object Object]'))).toBe(false);

  // status: DEGRADED, exit 2, naming the strategy, the reason with its file:line, and since when.
  const degraded = await until('status DEGRADED with the reason', 10_000, () => {
    const s = status(url);
    return s.code === 2 && s.stdout.includes(at) ? s : undefined;
  });
  expect(degraded.stdout.split('\n')[0]).toMatch(/^DEGRADED/);
  expect(degraded.stdout).toMatch(/strategy oops paused after repeated failures since \d{4}-\d\d-\d\dT[\d:.]+Z: strategy oops on BTC_USDT: threw: oops: cannot trade at [\d.]+ \(at oops\.ts:\d+:\d+\)/);
  expect(degraded.stdout).toContain('tradebot strategy-resume oops');

  // The documented command, through the control store, answered with what the daemon applied.
  const resumed = runCli(['strategy-resume', 'oops', '--config', config.file, '--timeout', '15'], {});
  expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
  expect(resumed.stdout).toMatch(/^oops: resumed, version [0-9a-f]+ \(paused since .*: strategy oops on BTC_USDT: threw: oops: cannot trade at/);
  await daemon.waitForLine(msg('strategy resumed by the operator'), 5_000, 'the resume');

  const healthy = await until('status HEALTHY again', 10_000, () => {
    const s = status(url);
    return s.code === 0 ? s : undefined;
  });
  expect(healthy.stdout.split('\n')[0]).toMatch(/^HEALTHY/);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toMatch(/tradebot_strategy_paused\{strategy="oops"\} 0/);
  // A second resume is answered too: nothing to do.
  const again = runCli(['strategy-resume', 'oops', '--config', config.file, '--timeout', '15'], {});
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('oops is not paused');
  // An unknown strategy is refused by the daemon, exit 1.
  const unknown = runCli(['strategy-resume', 'nope', '--config', config.file, '--timeout', '15'], {});
  expect(unknown.code).toBe(1);
  expect(unknown.stdout).toContain('unknown strategy nope');

  daemon.signal('SIGTERM');
  expect((await daemon.exit()).code).toBe(0);
});

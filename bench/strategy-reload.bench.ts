import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import type { BenchRow } from './bench-types';

/**
 * Reload costs (issue #24): a paper daemon (child process, no Redis, the strategy's guests as
 * `BENCH_GUEST_ISOLATION`, default process) runs one strategy; its module is edited and
 * `tradebot reload` run RUNS times. Measured: the time from the command to its answer (the new
 * version loaded, validated in a throwaway guest, started in a fresh guest and warmed: the shadow
 * runs), and the extra resident memory of the daemon plus its guests with a shadow running.
 * Run: `npm run build && node dist/bench/run.js strategy-reload`.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');
const RUNS = Number(process.env['BENCH_RELOAD_RUNS'] ?? 5);

function strategy(mult: string): string {
  return `const { z } = require('tradebot/strategy');
module.exports = {
  name: 'bench', markets: ['BTC_USDT'], interval: '1m', warmup: 50, params: z.object({}),
  onCandle(ctx) {
    const c = ctx.candles.closes();
    const avg = c.reduce((a, x) => a + x, 0) / Math.max(1, c.length);
    if (Number(ctx.candle.close) < avg * ${mult}) return [];
    return [];
  },
};
`;
}

/** RSS (kB) of the daemon's guests (process isolation: its descendants), or of the daemon with its threads. */
function guestsRssKb(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return (process.env['BENCH_GUEST_ISOLATION'] ?? 'process') === 'process' ? treeRssKb(pid) - own : treeRssKb(pid);
}

/** RSS (kB) of a process and all its descendants, from /proc. */
function treeRssKb(pid: number): number {
  let total = 0;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let children = '';
    try { children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8'); } catch { continue; }
    for (const c of children.trim().split(/\s+/).filter(Boolean)) {
      try { total += treeRssKb(Number(c)); } catch { /* ended */ }
    }
  }
  return total;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-reload-bench-'));
  const strategies = path.join(dir, 'strategies');
  spawnSync('mkdir', ['-p', strategies]);
  const module = path.join(strategies, 'bench.js');
  writeFileSync(module, strategy('1'));
  const config = path.join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    mode: 'paper',
    paper: { speed: 60, markets: [{ market: 'BTC_USDT', data: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') }], balances: { USDT: '100000', BTC: '1' } },
    strategies: { dir: strategies, stateDir: path.join(dir, 'state'), guestIsolation: process.env['BENCH_GUEST_ISOLATION'] ?? 'process', enabled: [{ name: 'bench' }] },
    killSwitch: { enabled: false }, metrics: { enabled: false }, log: { level: 'info' },
  }));
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['TRADEBOT_REDIS_URL']; // the paper daemon without Redis: requests and replies through files
  const daemon = spawn(process.execPath, [MAIN, 'run', '--config', config], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  daemon.stdout.on('data', (b: Buffer) => { out += b.toString('utf8'); });
  try {
    const deadline = Date.now() + 60_000;
    while (!out.includes('"tradebot started"')) {
      if (Date.now() > deadline || daemon.exitCode !== null) throw new Error(`daemon did not start:\n${out.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const before = guestsRssKb(daemon.pid!);
    const ms: number[] = [];
    let after = before;
    for (let i = 0; i < RUNS; i++) {
      writeFileSync(module, strategy(`1.00${i + 1}`));
      const started = performance.now();
      const r = spawnSync(process.execPath, [MAIN, 'reload', '--config', config], { cwd: dir, env, encoding: 'utf8' });
      ms.push(performance.now() - started);
      if (r.status !== 0) throw new Error(`reload failed: ${r.stdout}${r.stderr}`);
      await new Promise((res) => setTimeout(res, 1500));
      after = guestsRssKb(daemon.pid!);
    }
    // The daemon's part of it: new guest started and warmed (the rest: CLI start, the 1 s request poll, describing the modules).
    const staged = [...out.matchAll(/"startMs":(\d+)[^\n]*strategy reloaded/g)].map((m) => Number(m[1]));
    const load = loadavg().map((x) => x.toFixed(2)).join(' ');
    const iso = process.env['BENCH_GUEST_ISOLATION'] ?? 'process';
    return [
      { name: `reload command -> shadow running, median of ${RUNS}`, value: Math.round(median(ms)), unit: 'ms', note: `min ${Math.round(Math.min(...ms))}, max ${Math.round(Math.max(...ms))}; CLI start included; ${iso} guests; load ${load}` },
      { name: `shadow guest started and warmed (daemon log startMs), median of ${staged.length}`, value: staged.length > 0 ? median(staged) : -1, unit: 'ms', note: `${iso} guests; load ${load}` },
      { name: 'extra resident memory with one shadow guest', value: Math.round((after - before) / 1024), unit: 'MB', note: `${iso === 'process' ? 'guest processes' : 'daemon with its guest threads (GC makes this noisy)'} ${Math.round(before / 1024)} -> ${Math.round(after / 1024)} MB; load ${load}` },
    ];
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

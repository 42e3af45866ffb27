/**
 * Soak: the shipped paper daemon (`config/paper.yaml`, the quick start) scraped by a real Prometheus
 * (Debian `prometheus` 2.x) evaluating deploy/prometheus/alerts.yml, for N minutes (default 10).
 * Healthy means: no alert ever pending or firing after the first scrape, the target always up, the
 * daemon still running and trading. Also samples the daemon's RSS (for the k8s resources).
 *
 *   npm run build && node dist/bench/paper-soak.js [--minutes 10] [--config config/paper.yaml] [--redis redis://...]
 *
 * Exits 0 when healthy, 1 otherwise; prints a JSON summary. Not part of `npm test` (it takes minutes):
 * test/integration/ops/prometheus.test.ts runs a short version in the suite.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startPrometheus } from '../test/helpers/prometheus-harness';
import { freePort } from '../test/helpers/redis-server';

const ROOT = path.resolve(__dirname, '..', '..');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const minutes = Number(arg('minutes', '10'));
  const config = arg('config', 'config/paper.yaml');
  const redis = arg('redis', '');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, TRADEBOT_METRICS_PORT: String(port), TRADEBOT_LOG_LEVEL: 'warn' };
  if (redis !== '') {
    env['TRADEBOT_REDIS_URL'] = redis;
    env['TRADEBOT_REDIS_PREFIX'] = `tbsoak-${process.pid}`;
  }
  const daemon = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js'), 'run', '--config', config], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  daemon.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  const metrics = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${metrics}/readyz`).then((r) => r.ok, () => false))) {
    if (daemon.exitCode !== null || Date.now() > deadline) throw new Error(`daemon not ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const prometheus = await startPrometheus({ targets: [`127.0.0.1:${port}`], ruleFiles: [path.join(ROOT, 'deploy/prometheus/alerts.yml')], scrapeIntervalSeconds: 5 });
  const summary: Record<string, unknown> = { minutes, config, redis: redis !== '', scrapeIntervalSeconds: 5 };
  try {
    while ((await prometheus.query('tradebot_build_info')).length === 0) await new Promise((r) => setTimeout(r, 500));
    const since = Date.now();
    const rss: number[] = [];
    const seen = new Map<string, string>();
    while (Date.now() - since < minutes * 60_000) {
      await new Promise((r) => setTimeout(r, 15_000));
      if (daemon.exitCode !== null) throw new Error(`daemon exited (${daemon.exitCode}): ${stderr}`);
      const mib = rssMiB(daemon.pid!);
      if (mib !== undefined) rss.push(mib);
      for (const a of await prometheus.alerts()) seen.set(`${a.labels['alertname']} ${JSON.stringify(a.labels)}`, a.state);
    }
    const window = Math.floor((Date.now() - since) / 1000);
    const ever = await prometheus.query(`count_over_time(ALERTS[${window}s])`);
    const up = await prometheus.query(`min_over_time(up[${window}s])`);
    const fills = await prometheus.query('sum(tradebot_fills_total)');
    const orders = await prometheus.query('sum(tradebot_order_transitions_total{from="submitted"})');
    const sorted = [...rss].sort((a, b) => a - b);
    Object.assign(summary, {
      alertsSeen: [...seen].map(([k, state]) => `${k} ${state}`),
      alertSeriesEver: ever.map((r) => r.metric),
      targetAlwaysUp: up.every((r) => r.value[1] === '1') && up.length === 1,
      ordersSubmitted: Number(orders[0]?.value[1] ?? 0),
      fills: Number(fills[0]?.value[1] ?? 0),
      rssMiB: { samples: rss.length, min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] },
    });
    const healthy = seen.size === 0 && ever.length === 0 && summary['targetAlwaysUp'] === true && daemon.exitCode === null;
    summary['healthy'] = healthy;
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return healthy ? 0 : 1;
  } finally {
    await prometheus.stop();
    daemon.kill('SIGTERM');
  }
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`paper soak failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

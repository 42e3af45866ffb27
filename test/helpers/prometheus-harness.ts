import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './redis-server';

/**
 * A real Prometheus (the Debian `prometheus` package, 2.x) on loopback, scraping given targets and
 * evaluating the repository's alert rules, with its data in a temp dir removed by stop(). Used by
 * test/integration/ops/prometheus.test.ts and the soak script bench/paper-soak.ts.
 */
export interface PrometheusServer {
  readonly url: string;
  /** Instant query; the result vector (empty when the expression has no data). */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Active alerts (pending and firing). */
  alerts(): Promise<{ labels: Record<string, string>; state: string; activeAt: string }[]>;
  /** Health of the scrape targets. */
  targets(): Promise<{ scrapeUrl: string; health: string; lastError: string }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** host:port of each /metrics endpoint, scraped as job "tradebot". */
  readonly targets: readonly string[];
  readonly ruleFiles?: readonly string[];
  readonly scrapeIntervalSeconds?: number;
  readonly evaluationIntervalSeconds?: number;
  readonly command?: string;
}

export async function startPrometheus(o: PrometheusOptions): Promise<PrometheusServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tb-prometheus-'));
  const scrape = o.scrapeIntervalSeconds ?? 1;
  const config = [
    'global:',
    `  scrape_interval: ${scrape}s`,
    `  scrape_timeout: ${Math.max(1, Math.min(scrape, 10))}s`,
    `  evaluation_interval: ${o.evaluationIntervalSeconds ?? scrape}s`,
    'rule_files:',
    ...(o.ruleFiles ?? []).map((f) => `  - ${JSON.stringify(path.resolve(f))}`),
    'scrape_configs:',
    '  - job_name: tradebot',
    '    static_configs:',
    `      - targets: [${o.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    '',
  ].join('\n');
  const file = path.join(dir, 'prometheus.yml');
  writeFileSync(file, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(o.command ?? 'prometheus', [
    `--config.file=${file}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn', '--web.enable-lifecycle',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr?.on('data', (c: Buffer) => { output += c.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const api = async <T>(p: string): Promise<T> => {
    const res = await fetch(`${url}${p}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${p}: ${body.error ?? res.status}`);
    return body.data;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${output.slice(-2000)}`);
    const ok = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`prometheus not ready within 30 s: ${output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    query: async (expr) => (await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api<{ alerts: { labels: Record<string, string>; state: string; activeAt: string }[] }>('/api/v1/alerts')).alerts,
    targets: async () => (await api<{ activeTargets: { scrapeUrl: string; health: string; lastError: string }[] }>('/api/v1/targets')).activeTargets,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Grafana panel query as plain PromQL: the dashboard's variables take "everything" and
 * `$__rate_interval` a window that holds several scrapes.
 */
export function grafanaToPromQL(expr: string, rateInterval = '15s'): string {
  return expr
    .replace(/\$__rate_interval|\$\{__rate_interval\}/g, rateInterval)
    .replace(/\$\{?(job|instance|market|strategy)\}?/g, '.*');
}

/** `promtool <args>`: exit code and output. */
export function promtool(args: readonly string[], input?: string, command = 'promtool'): { code: number | null; output: string } {
  const r = spawnSync(command, [...args], { encoding: 'utf8', input, timeout: 60_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

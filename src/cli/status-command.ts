import type { Command } from 'commander';
import { loadConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import { defaultConfigFile, formatError } from './cli-basics';
import { gatherStatus, metricsUrlOf, type StatusReport } from './status-report';

interface StatusOptions {
  config?: string;
  url?: string;
  json?: boolean;
}

/** Exit codes: 0 healthy, 1 not healthy (or unreachable), 2 degraded (a live strategy paused after failures), 78 bad config. */
export const STATUS_UNHEALTHY = 1;
export const STATUS_DEGRADED = 2;

/**
 * `tradebot status [--config F] [--url U] [--json]`: is the daemon healthy, and what is it doing?
 * Reads the daemon's metrics endpoint (readiness, trading state, candles, kill-switch) and, with
 * Redis, the account's stored trading state, leases and live journal orders.
 */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('daemon health and state: readiness, trading state, leases, open orders, last candles (exit 1 when not healthy, 2 when a strategy is paused after failures)')
    .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .option('--url <url>', 'metrics endpoint of the daemon (default from metrics.host / metrics.port)')
    .option('--json', 'print JSON')
    .action(async (opts: StatusOptions) => {
      try {
        const config = loadConfig(opts.config ?? defaultConfigFile(), process.env);
        const url = opts.url ?? metricsUrlOf(config);
        if (!/^https?:\/\//.test(url)) throw new ConfigError(`--url must be an http(s) URL, got ${url}`, { path: 'url' });
        const report = await gatherStatus(config, process.env, url.replace(/\/+$/, ''));
        process.stdout.write(opts.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
        process.exitCode = report.healthy ? 0 : report.degraded ? STATUS_DEGRADED : STATUS_UNHEALTHY;
      } catch (err) {
        process.stderr.write(formatError(err));
        process.exitCode = err instanceof ConfigError ? 78 : STATUS_UNHEALTHY;
      }
    });
}

function table(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}`).join('\n');
}

const age = (ms: number): string => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** Plain text for a terminal; the first line is the verdict. */
export function formatStatus(r: StatusReport): string {
  const d = r.daemon;
  const lines = [
    `${r.healthy ? 'HEALTHY' : r.degraded ? 'DEGRADED' : 'NOT HEALTHY'}  ${d.url}`,
    ...r.problems.map((p) => `  - ${p}`),
    '',
    `daemon     ${d.reachable ? `version ${d.version ?? '?'}, store ${d.store ?? '?'}${d.account ? ` (account ${d.account})` : ''}` : 'not reachable'}`,
    `ready      ${Object.entries(d.checks).map(([n, c]) => `${n} ${c.ok ? 'ok' : `FAIL ${c.reason ?? ''}`.trim()}`).join(', ') || '-'}`,
    // A daemon below its configured minimum refuses to start, so whatever is shown here met it.
    `isolation  ${d.guestIsolation ?? '-'}`,
    `trading    ${d.tradingState ?? '-'}${r.storedTradingState ? `   (stored: ${r.storedTradingState.state}, "${r.storedTradingState.reason}", ${new Date(r.storedTradingState.atMs).toISOString()})` : ''}`,
  ];
  if (r.note !== undefined) lines.push(`note       ${r.note}`);
  lines.push('', 'leases');
  lines.push(table(r.leases.map((l) => [l.strategy, l.market, l.owner === undefined ? 'not held' : `${l.owner} (token ${l.token}, ${age(l.remainingMs ?? 0)} left)`])) || '  none');
  lines.push('', 'open orders (journal)');
  lines.push(table(r.openOrders.map((o) => [o.strategy, o.market, String(o.count)])) || '  none');
  lines.push('', 'last closed candle (market clock)');
  lines.push(table(r.candles.map((c) => [c.market, c.interval, c.lastClose, `lag ${Number.isNaN(c.lagSeconds) ? '?' : `${Math.round(c.lagSeconds)} s`}`])) || '  none');
  if (r.streams.length > 0) {
    lines.push('', 'streams (unhealthy = on REST polling)');
    lines.push(table(r.streams.map((x) => [x.stream, x.healthy ? 'healthy' : x.connected ? 'connected, not healthy' : 'DOWN',
      `${x.messages} msgs`, `${x.reconnects} reconnects`, `${x.resyncs} resyncs`, `${x.staleFallbacks} stale`, `${x.invalid} invalid`])));
  }
  if (r.guardrails.length > 0) {
    lines.push('', 'guardrails in force (docs/risk.md; the log line "guardrail tripped" says why and until when)');
    lines.push(table(r.guardrails.map((g) => [g.guard, g.scope])));
  }
  if (r.killSwitch.length > 0) {
    lines.push('', 'kill-switch');
    lines.push(table(r.killSwitch.map((k) => [k.market, k.armed ? 'armed' : 'NOT ARMED', k.remainingSeconds === undefined ? '' : `${Math.round(k.remainingSeconds)} s left`])));
  }
  return `${lines.join('\n')}\n`;
}

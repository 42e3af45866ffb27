import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Decimal } from '../domain/decimal';
import type { FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import type { MarketName } from '../domain/market';
import { componentLogger } from '../log/logger';
import { ConsoleReads } from '../console/console-reads';
import { startConsoleServer } from '../console/console-server';
import { InMemoryDriftCheckList, RedisDriftCheckList } from '../console/drift-checks';
import { LiveEvents } from '../console/live-events';
import { openApiDocument } from '../console/openapi';
import { consoleRoutes } from '../console/routes';
import { loadStaticFiles } from '../console/static-files';
import { mintToken, TokenBook } from '../console/token-book';
import type { ReadinessReport } from '../metrics/server';
import { OperatorActions } from '../operator/operator-actions';
import type { DaemonContext } from './daemon-context';
import type { Venue } from './exchange-wiring';
import { operatorStores } from './operator-wiring';
import { tradingStateDir } from './state-dirs';
import type { Trading } from './trading-wiring';

/** How long a console action waits for every running replica to confirm (the CLI's default too). */
const ACTION_WAIT_MS = 10_000;

/** 127.0.0.0/8, ::1 and localhost: the only addresses where a token may travel without TLS. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Who may use the console, checked as at start (also by `tradebot check-config`): a non-loopback
 * address only behind a declared TLS proxy; at least one token (or the paper one-time token); every
 * token file readable. ConfigError naming the key otherwise.
 */
export function consoleAccess(config: FrozenConfig): { readonly tokens: TokenBook; readonly oneTime: string | undefined } {
  const c = config.console;
  if (!isLoopback(c.host) && !c.behindTlsProxy) {
    throw new ConfigError(`console.host ${c.host} is not a loopback address: bearer tokens would cross the network in clear. Put a TLS-terminating proxy (an Ingress) in front and set console.behindTlsProxy: true (docs/console.md)`, { path: 'console.host' });
  }
  const oneTime = c.tokens.length === 0 && c.oneTimeToken && config.mode === 'paper' && isLoopback(c.host) ? mintToken() : undefined;
  if (c.tokens.length === 0 && oneTime === undefined) {
    throw new ConfigError('console.enabled needs at least one token in console.tokens (a one-time token is minted only in paper mode on loopback)', { path: 'console.tokens' });
  }
  return { tokens: TokenBook.fromConfig(c, oneTime === undefined ? [] : [{ name: 'one-time', role: 'operator', token: oneTime }]), oneTime };
}

/**
 * The operator's console (config `console`, docs/console.md): the API and the page on their own
 * listener, reading the stores every replica shares and acting through the operator's one path
 * (OperatorActions, as the CLI). Started last, once the daemon trades. Paper mode on loopback without
 * a configured token gets a token for this process's life, printed once on stderr with the URL
 * (never through the logger: log files outlive the process).
 */
export async function startConsole(
  ctx: DaemonContext, venue: Venue, strategies: readonly { readonly name: string; readonly markets: readonly MarketName[]; readonly interval: string }[],
  trading: Trading, lastPrice: (market: MarketName) => Decimal | undefined, version: string, readiness: () => Promise<ReadinessReport>,
): Promise<string | undefined> {
  const c = ctx.config.console;
  if (!c.enabled) return undefined;
  const { tokens, oneTime } = consoleAccess(ctx.config);
  const log = componentLogger(ctx.log, 'console');
  const { redis } = venue;
  const stores = operatorStores(ctx.config, ctx.baseDir, redis, venue.state.keys);
  const drift = redis === undefined ? new InMemoryDriftCheckList() : new RedisDriftCheckList(redis, venue.state.keys);
  ctx.events.subscribe((e) => {
    if (e.type === 'drift') drift.add(e).catch((err: unknown) => log.warn({ err }, 'drift check not kept for the console'));
  });
  const control = trading.tradingControl;
  const reads = new ConsoleReads({
    mode: ctx.config.mode, strategies: strategies.map((s) => ({ name: s.name, markets: s.markets, interval: s.interval })),
    orders: venue.state.orders, leases: venue.state.leases, tradingState: venue.state.tradingState, guards: venue.state.guards,
    appliedState: () => ({ state: control.state, reason: 'config risk.initialState (nothing stored yet)' }),
    control: stores.control, audit: stores.audit, drift, marketClock: venue.marketClock, wallClock: ctx.wallClock, lastPrice,
    currency: strategies[0]?.markets[0]?.split('_')[1] ?? 'USDT',
    self: async () => {
      const [report, connected, healthy] = await Promise.all([readiness(), ctx.metrics.streamConnected.get(), ctx.metrics.streamHealthy.get()]);
      const up = (values: typeof connected.values, stream: string): boolean => values.some((v) => v.labels['stream'] === stream && v.value === 1);
      const names = [...new Set(connected.values.map((v) => String(v.labels['stream'])))].sort();
      return { ready: report.status === 'ready', checks: report.checks, streams: names.map((stream) => ({ stream, connected: up(connected.values, stream), healthy: up(healthy.values, stream) })) };
    },
  });
  const routes = consoleRoutes({ reads, actions: new OperatorActions(stores), waitMs: ACTION_WAIT_MS });
  // Zero series, so rate() and the alert see the first request and the first failure.
  for (const r of routes) ctx.metrics.consoleRequests.inc({ route: r.path, status: '200' }, 0);
  for (const reason of ['missing', 'invalid', 'forbidden', 'blocked']) ctx.metrics.consoleAuthFailures.inc({ reason }, 0);
  const server = await startConsoleServer({
    host: c.host, port: c.port, routes, openApi: openApiDocument(routes, version), tokens, files: loadStaticFiles(),
    live: new LiveEvents(ctx.events), maxAuthFailuresPerMinute: c.maxAuthFailuresPerMinute, metrics: ctx.metrics, log,
  });
  ctx.closers.push({ name: 'console', close: () => server.close() });
  log.info({ url: server.url, tokens: tokens.size, oneTimeToken: oneTime !== undefined }, 'console listening');
  if (oneTime !== undefined) {
    const file = await showOneTimeToken(server.url, oneTime, tradingStateDir(ctx.config, ctx.baseDir));
    // The token dies with the process: so does its file.
    if (file !== undefined) ctx.closers.push({ name: 'console token file', close: () => rm(file, { force: true }) });
  }
  return server.url;
}

/**
 * On a terminal (`npm start`) the URL with the token is printed on stderr; anywhere else (pm2, a
 * container) stderr ends in a log file, so the token goes to a file only its user can read, and
 * stderr names the file.
 */
async function showOneTimeToken(url: string, token: string, dir: string): Promise<string | undefined> {
  if (process.stderr.isTTY === true) {
    process.stderr.write(`console: ${url}/#token=${token}\n  (a one-time operator token for this process only; configure console.tokens to keep one)\n`);
    return undefined;
  }
  const file = path.join(dir, 'console-token');
  await mkdir(dir, { recursive: true });
  await rm(file, { force: true });
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  process.stderr.write(`console: ${url}/ (a one-time operator token for this process is in ${file}; open ${url}/#token=<it>)\n`);
  return file;
}

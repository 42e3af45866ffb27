import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { ConfigError, TradebotError } from '../domain/errors';
import type { Logger } from '../log/logger';

/**
 * Result of one readiness check: a boolean, or a reason CODE shown in the 503 body when it fails
 * (`TB_ERR_STORE_UNAVAILABLE`, `not_reconciled`, `timeout`): never an error's text, which could
 * carry hosts, URLs or request details. A reason that is not a code is replaced by `failed`.
 */
export type CheckResult = boolean | { readonly ok: boolean; readonly reason?: string };

/** A named readiness check, e.g. `redis` (PING answers), `exchange` (reachable), `reconciled`. */
export interface ReadinessCheck {
  readonly name: string;
  check(): CheckResult | Promise<CheckResult>;
}

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** Default 9464 (the Prometheus exporter convention); 0 picks a free port (tests). */
  readonly port?: number;
  /** Default 127.0.0.1 (local only); containers set 0.0.0.0 so Prometheus and the kubelet reach it. */
  readonly host?: string;
  /**
   * Liveness beyond "the event loop answered": return false once the process is wedged in a way it
   * cannot recover from (e.g. shutdown started and stuck) so the supervisor restarts it.
   */
  readonly liveness?: () => boolean;
  /** All must pass for /readyz to answer 200. None means always ready. */
  readonly readiness?: readonly ReadinessCheck[];
  /** A check that has not answered within this many ms fails; default 2000 (below probe timeouts). */
  readonly checkTimeoutMs?: number;
  readonly logger?: Logger;
}

export interface MetricsServer {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** `http://host:port`, for tests and logs. */
  readonly url: string;
  /** Stops accepting connections and drops open ones. Safe to call twice. */
  close(): Promise<void>;
}

export interface ReadinessReport {
  readonly status: 'ready' | 'not_ready';
  readonly checks: Readonly<Record<string, { ok: boolean; reason?: string }>>;
  readonly failing: readonly string[];
}

const REASON_CODE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** A reason as a code: TB_ERR_* or a short snake_case word; anything else becomes `failed`. */
export function reasonCode(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  return REASON_CODE.test(reason) ? reason : 'failed';
}

/**
 * Runs every check in parallel, each bounded by `timeoutMs`. A check that throws or times out
 * fails; its reason is a code (`timeout`, the error's TB_ERR_* code, `error`), never a message.
 */
export async function evaluateReadiness(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<ReadinessReport> {
  const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c, timeoutMs)] as const));
  const failing = results.filter(([, r]) => !r.ok).map(([name]) => name);
  return { status: failing.length === 0 ? 'ready' : 'not_ready', checks: Object.fromEntries(results), failing };
}

async function runCheck(c: ReadinessCheck, timeoutMs: number): Promise<{ ok: boolean; reason?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ ok: boolean; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'timeout' }), timeoutMs);
  });
  try {
    const answer = Promise.resolve().then(() => c.check()).then((r) => (typeof r === 'boolean' ? { ok: r } : r));
    const r = await Promise.race([answer, timeout]);
    const reason = r.ok ? undefined : reasonCode(r.reason);
    return reason === undefined ? { ok: r.ok } : { ok: r.ok, reason };
  } catch (error) {
    return { ok: false, reason: error instanceof TradebotError ? error.code : 'error' };
  } finally {
    clearTimeout(timer);
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The operations endpoint, on its own port, apart from any trading traffic:
 * - GET /metrics  Prometheus text exposition of `registry`
 * - GET /healthz  liveness: 200 as long as the event loop answers and `liveness()` is true
 * - GET /readyz   readiness: 200 when every check passes, else 503 naming the failing ones
 * anything else is 404 (405 for a known path with another method).
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, logger } = options;
  const checks = options.readiness ?? [];
  const timeoutMs = options.checkTimeoutMs ?? 2000;
  const liveness = options.liveness ?? (() => true);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    const known = path === '/metrics' || path === '/healthz' || path === '/readyz';
    if (!known) return send(res, 404, JSON_TYPE, JSON.stringify({ error: 'not found' }));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, JSON_TYPE, JSON.stringify({ error: 'method not allowed' }));
    }
    if (path === '/metrics') return send(res, 200, registry.contentType, await registry.metrics());
    if (path === '/healthz') {
      const alive = liveness();
      return send(res, alive ? 200 : 503, JSON_TYPE, JSON.stringify({ status: alive ? 'alive' : 'dead' }));
    }
    const report = await evaluateReadiness(checks, timeoutMs);
    return send(res, report.status === 'ready' ? 200 : 503, JSON_TYPE, JSON.stringify(report));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger?.error({ err: error, path: req.url }, 'metrics endpoint failed');
      if (!res.headersSent) send(res, 500, JSON_TYPE, JSON.stringify({ error: 'internal error' }));
      else res.destroy();
    });
  });
  // Scrapers keep connections alive; a short idle timeout keeps close() quick and sockets few.
  server.keepAliveTimeout = 5000;

  const port = options.port ?? 9464;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    // Port in use or host not local: the operator must change metrics.port / metrics.host.
    const onError = (cause: Error) =>
      reject(new ConfigError(`metrics server cannot listen on ${host}:${port}: ${cause.message}`, { path: 'metrics.port', port, host }, { cause }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost}:${address.port}`;
  logger?.info({ port: address.port, host: address.address }, 'metrics server listening');

  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Scrape connections carry nothing worth waiting for at shutdown.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

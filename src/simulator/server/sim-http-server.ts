import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../core/clock';
import { ExchangeRejectedError } from '../../domain/errors';
import { ENDPOINTS, type EndpointId, type EndpointSpec } from '../../exchange/http/endpoints';
import { checkRequest, type CheckResult } from '../../exchange/request-rules';
import type { LimitId, LimitTable } from '../../limiter/limits';
import type { SimEngine } from '../engine/sim-engine';
import type { MarketFeed } from '../market/market-feed';
import type { SimClock } from '../market/sim-clock';
import { authenticate, TOO_MANY_REQUESTS } from './authenticate';
import { EXTRA_PRIVATE, EXTRA_PUBLIC, type ExtraPrivateRoute } from './extra-routes';
import type { Faults } from './faults';
import { NonceGuard } from './nonce-guard';
import { PRIVATE_HANDLERS, PrivateAnswer } from './private-handlers';
import { PUBLIC_HANDLERS, type PublicAnswer, type PublicContext } from './public-handlers';
import { RateGate } from './rate-gate';

export interface SimHttpServerDeps {
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly marketClock: SimClock;
  /** Nonce windows, rate-limit windows, the kline cache and `/time` follow this clock. */
  readonly wallClock: Clock;
  /** API key -> secret. */
  readonly secrets: ReadonlyMap<string, string>;
  readonly faults: Faults;
  /** Undefined disables rate limiting. */
  readonly limits: LimitTable | undefined;
}

const MAX_BODY = 1 << 20;
const KLINE_CACHE_MS = 1000;

/** Field -> the exchange's validation code for it (exchange-api-extra §3.3); anything else is 30. */
const FIELD_CODES: Readonly<Record<string, number>> = {
  market: 31, amount: 32, price: 33, stop_limit_price: 33, stopLimitPrice: 33, client_order_id: 36, clientOrderId: 36,
};

/**
 * The simulated exchange over node:http: every endpoint of endpoints.ts (both OCO list paths), the
 * spec's signing and nonce rules, request rules via checkRequest, rate limits and fault injection.
 * Unknown routes answer 404 with an empty body, as the exchange's gateway does.
 */
export class SimHttpServer {
  private readonly server: Server;
  private readonly routes = new Map<string, { id: EndpointId; spec: EndpointSpec }>();
  private readonly nonces = new NonceGuard();
  private readonly gate: RateGate;
  private readonly held = new Set<NodeJS.Timeout>();
  private readonly klineCache = new Map<string, { expires: number; version: number; body: string }>();
  private lastSyncMs = Number.NaN;
  private error5xxCount = 0;

  constructor(private readonly deps: SimHttpServerDeps) {
    for (const [id, spec] of Object.entries(ENDPOINTS) as [EndpointId, EndpointSpec][]) {
      this.routes.set(`${spec.method} ${spec.path}`, { id, spec });
    }
    this.gate = new RateGate(deps.limits);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) this.send(res, 500, { error: ['Internal server error.'] });
      });
    });
    this.server.keepAliveTimeout = 30_000;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const timer of this.held) clearTimeout(timer);
    this.held.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Brings the engine up to the market clock (cheap when the clock has not moved). */
  syncMarket(): void {
    const now = this.deps.marketClock.nowMs();
    if (now === this.lastSyncMs) return;
    this.lastSyncMs = now;
    this.deps.feed.sync();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const route = this.routes.get(`${req.method ?? 'GET'} ${path}`);
    const extraPublic = req.method === 'GET' ? EXTRA_PUBLIC[path] : undefined;
    const extraPrivate = req.method === 'POST' ? EXTRA_PRIVATE[path] : undefined;
    const known = route !== undefined || extraPublic !== undefined || extraPrivate !== undefined;
    const raw = req.method === 'POST' ? await readBody(req) : '';
    if (!known || raw === undefined) {
      res.writeHead(known ? 413 : 404).end();
      return;
    }

    const fault = this.deps.faults.decide(route?.id ?? path);
    if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault.kind === 'error5xx') {
      // Alternate the two 5xx forms the exchange produces: JSON 500 and a non-JSON 503 from the gateway.
      if (this.error5xxCount++ % 2 === 0) this.send(res, 500, { error: ['Internal server error.'] });
      else res.writeHead(503, { 'Content-Type': 'text/html' }).end('<html><body>503 Service Temporarily Unavailable</body></html>');
      return;
    }
    if (fault.kind === 'rateLimit429') return this.send(res, 429, TOO_MANY_REQUESTS);
    if (fault.kind === 'timeout') {
      const timer = setTimeout(() => {
        this.held.delete(timer);
        req.socket.destroy();
      }, this.deps.faults.current().timeoutHoldMs);
      this.held.add(timer);
      return;
    }

    this.syncMarket();
    let answer: readonly [number, unknown];
    if (route !== undefined) {
      answer = route.spec.private ? this.servePrivate(route.id, path, req, raw) : this.servePublic(route.id, url, q, req);
    } else if (extraPublic !== undefined) {
      const wallNowMs = this.deps.wallClock.nowMs();
      answer = this.gate.take(extraPublic.limit, req.socket.remoteAddress ?? '?', wallNowMs)
        ? extraPublic.answer(this.deps.engine, this.deps.feed, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)), this.deps.marketClock.nowMs() / 1000)
        : [429, TOO_MANY_REQUESTS];
    } else {
      answer = this.serveExtraPrivate(extraPrivate!, path, req, raw);
    }
    const [status, body] = answer;
    if (fault.kind === 'lostAnswer') {
      // Processed (an order may now exist), but the caller never hears about it.
      req.socket.destroy();
      return;
    }
    if (typeof body === 'string') this.sendRaw(res, status, body);
    else this.send(res, status, body);
  }

  private servePublic(id: EndpointId, url: string, q: number, req: IncomingMessage): readonly [number, unknown] {
    const wallNowMs = this.deps.wallClock.nowMs();
    if (!this.gate.take(ENDPOINTS[id].limit, req.socket.remoteAddress ?? '?', wallNowMs)) return [429, TOO_MANY_REQUESTS];
    const ctx: PublicContext = {
      engine: this.deps.engine, feed: this.deps.feed, query: new URLSearchParams(q === -1 ? '' : url.slice(q + 1)),
      marketNow: this.deps.marketClock.nowMs() / 1000, wallNowMs,
    };
    if (id !== 'kline') {
      const handler = PUBLIC_HANDLERS[id as Exclude<keyof typeof PUBLIC_HANDLERS, 'kline'>];
      return handler === undefined ? [404, ''] : handler(ctx);
    }
    const version = this.deps.marketClock.version;
    const cached = this.klineCache.get(url);
    if (cached !== undefined && cached.expires > wallNowMs && cached.version === version) return [200, cached.body];
    const [status, body]: PublicAnswer = PUBLIC_HANDLERS.kline(ctx);
    const text = JSON.stringify(body);
    if (this.klineCache.size > 1000) this.klineCache.clear();
    this.klineCache.set(url, { expires: wallNowMs + KLINE_CACHE_MS, version, body: text });
    return [status, text];
  }

  private servePrivate(id: EndpointId, path: string, req: IncomingMessage, raw: string): readonly [number, unknown] {
    const handler = PRIVATE_HANDLERS[id];
    return this.runPrivate(ENDPOINTS[id].limit, path, req, raw, (body) => checkRequest(id, body), (apiKey, params) => {
      if (handler === undefined) return new PrivateAnswer(404, '');
      return handler({ engine: this.deps.engine, apiKey, params, now: this.deps.engine.now() });
    });
  }

  private serveExtraPrivate(route: ExtraPrivateRoute, path: string, req: IncomingMessage, raw: string): readonly [number, unknown] {
    return this.runPrivate(route.limit, path, req, raw, (body) => {
      const parsed = route.schema.safeParse(body);
      if (parsed.success) return { ok: true, value: parsed.data };
      const fieldErrors: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) (fieldErrors[String(issue.path[0] ?? 'request')] ??= []).push(issue.message);
      return { ok: false, fieldErrors };
    }, (apiKey, params) => route.handle(this.deps.engine, apiKey, params));
  }

  /** Authenticate -> rate limit -> validate -> run, with every failure in the exchange's shape. */
  private runPrivate(
    limit: LimitId, path: string, req: IncomingMessage, raw: string,
    validate: (body: Record<string, unknown>) => CheckResult,
    run: (apiKey: string, params: Readonly<Record<string, unknown>>) => unknown,
  ): readonly [number, unknown] {
    const wallNowMs = this.deps.wallClock.nowMs();
    const auth = authenticate(req.headers, raw, path, this.deps.secrets, this.nonces, wallNowMs);
    if (!auth.ok) return [auth.status, auth.body];
    if (!this.gate.take(limit, auth.apiKey, wallNowMs)) return [429, TOO_MANY_REQUESTS];
    const checked = validate(auth.body);
    if (!checked.ok) {
      const fields = Object.keys(checked.fieldErrors);
      const code = fields.length === 1 ? (FIELD_CODES[fields[0] ?? ''] ?? 30) : 30;
      return [422, { code, message: 'Validation failed', errors: checked.fieldErrors }];
    }
    try {
      const result = run(auth.apiKey, checked.value);
      return result instanceof PrivateAnswer ? [result.status, result.body] : [200, result];
    } catch (error) {
      if (error instanceof ExchangeRejectedError) {
        return [error.httpStatus ?? 400, { code: error.venueCode ?? 0, message: error.message, errors: error.fieldErrors }];
      }
      throw error;
    }
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    this.sendRaw(res, status, JSON.stringify(body));
  }

  private sendRaw(res: ServerResponse, status: number, text: string): void {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  }
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

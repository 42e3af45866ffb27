import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, ManualClock } from '../../core/clock';
import { ExchangeRejectedError } from '../../domain/errors';
import type { WireEndpointId } from '../../exchange/wire/endpoints';
import type { FieldErrors } from '../../exchange/wire/request-rules';
import type { Dialect, EndpointWire } from '../../exchange/wire/dialects';
import { requestCodec, type RequestCodec, type UnknownFieldPolicy } from '../../exchange/wire/request-codec';
import type { LimitTable } from '../../limiter/limits';
import type { SimEngine } from '../engine/sim-engine';
import type { MarketFeed } from '../market/market-feed';
import { authenticate, TOO_MANY_REQUESTS } from './authenticate';
import type { Faults } from './faults';
import { NonceGuard } from './nonce-guard';
import { PRIVATE_HANDLERS, PrivateAnswer } from './private-handlers';
import { PUBLIC_HANDLERS, v1Envelope, type PublicAnswer, type PublicEndpointId } from './public-handlers';
import { RateGate } from './rate-gate';
import { regionRefusal, type SimRegion } from './region';
import { SIM_CLOCK_PATH, simClockAnswer } from './sim-clock-endpoint';
import type { WsTokens } from '../ws/ws-tokens';

export interface SimHttpServerDeps {
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly marketClock: ManualClock;
  /** Nonce windows, rate-limit windows, the kline cache and `/time` follow this clock. */
  readonly wallClock: Clock;
  /** API key -> secret. */
  readonly secrets: ReadonlyMap<string, string>;
  readonly faults: Faults;
  /** Undefined disables rate limiting. */
  readonly limits: LimitTable | undefined;
  /** The one dialect this server speaks: its paths, the fields it accepts, the shapes it answers. */
  readonly dialect: Dialect;
  /** A body field the dialect does not know: refused with code 30 (default) or ignored, as the live venue does. */
  readonly unknownFields: UnknownFieldPolicy;
  /** `eu` refuses the order types the EU region does not offer with HTTP 453, as documented. */
  readonly region: SimRegion;
  /** Issues the WebSocket tokens of `profile/websocket_token` (the WebSocket server accepts them). */
  readonly wsTokens: WsTokens;
}

const MAX_BODY = 1 << 20;
const KLINE_CACHE_MS = 1000;

/** Field (canonical name) -> the exchange's validation code for it (exchange-api-extra §3.3); anything else is 30. */
const FIELD_CODES: Readonly<Record<string, number>> = { market: 31, amount: 32, price: 33, stopLimitPrice: 33, clientOrderId: 36 };

interface Route {
  readonly id: WireEndpointId;
  readonly path: string;
}

/**
 * The simulated exchange over node:http, speaking exactly one wire dialect: the dialect's paths, its
 * field names in and out (src/exchange/wire/), the spec's signing and nonce rules, the request rules
 * (a field the dialect does not know is refused), rate limits and fault injection. Unknown routes
 * answer 404 with an empty body, as the exchange's gateway does.
 */
export class SimHttpServer {
  private readonly server: Server;
  private readonly routes = new Map<string, Route>();
  private readonly codec: RequestCodec;
  private readonly nonces = new NonceGuard();
  private readonly gate: RateGate;
  private readonly held = new Set<NodeJS.Timeout>();
  private readonly klineCache = new Map<string, { expires: number; version: number; body: string }>();
  private lastSyncMs = Number.NaN;
  private error5xxCount = 0;

  constructor(private readonly deps: SimHttpServerDeps) {
    for (const [id, wire] of Object.entries(deps.dialect.endpoints) as [WireEndpointId, EndpointWire][]) {
      this.routes.set(`${wire.method} ${wire.path}`, { id, path: wire.path });
    }
    this.codec = requestCodec(deps.dialect);
    this.gate = new RateGate(deps.limits);
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) this.send(res, 500, { error: ['Internal server error.'] });
      });
    });
    this.server.keepAliveTimeout = 30_000;
  }

  /** The node server, for the WebSocket twin to take upgrades on the same port. */
  get nodeServer(): Server {
    return this.server;
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
    if (path === SIM_CLOCK_PATH && req.method === 'GET') return this.send(res, 200, simClockAnswer(this.deps.marketClock, this.deps.wallClock));
    const route = this.routes.get(`${req.method ?? 'GET'} ${path}`);
    const raw = req.method === 'POST' ? await readBody(req) : '';
    if (route === undefined || raw === undefined) {
      res.writeHead(route !== undefined ? 413 : 404).end();
      return;
    }

    const fault = this.deps.faults.decide(route.id);
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
    const [status, body] = this.deps.dialect.endpoints[route.id].private ? this.servePrivate(route, req, raw) : this.servePublic(route, url, q, req);
    if (fault.kind === 'lostAnswer') {
      // Processed (an order may now exist), but the caller never hears about it.
      req.socket.destroy();
      return;
    }
    if (typeof body === 'string') this.sendRaw(res, status, body);
    else this.send(res, status, body);
  }

  private servePublic(route: Route, url: string, q: number, req: IncomingMessage): readonly [number, unknown] {
    const wallNowMs = this.deps.wallClock.nowMs();
    if (!this.gate.take(this.deps.dialect.endpoints[route.id].limit, req.socket.remoteAddress ?? '?', wallNowMs)) return [429, TOO_MANY_REQUESTS];
    const cacheable = route.id === 'kline';
    const version = this.deps.marketClock.version;
    if (cacheable) {
      const cached = this.klineCache.get(url);
      if (cached !== undefined && cached.expires > wallNowMs && cached.version === version) return [200, cached.body];
    }
    const query: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(q === -1 ? '' : url.slice(q + 1))) query[k] = v;
    const checked = this.codec.decode(route.id, query, this.deps.unknownFields);
    let answer: PublicAnswer;
    if (!checked.ok) {
      // v1: HTTP 200, success false, field messages in `message`; v4: a flat 422 body of field messages.
      answer = route.path.startsWith('/api/v1/') ? [200, v1Envelope(this.deps.dialect.shapes, false, checked.fieldErrors, null)] : [422, checked.fieldErrors];
    } else {
      answer = PUBLIC_HANDLERS[route.id as PublicEndpointId]({
        engine: this.deps.engine, feed: this.deps.feed, params: checked.value, shapes: this.deps.dialect.shapes,
        marketNow: this.deps.marketClock.nowMs() / 1000, wallNowMs,
      });
    }
    if (!cacheable) return answer;
    const text = JSON.stringify(answer[1]);
    if (this.klineCache.size > 1000) this.klineCache.clear();
    this.klineCache.set(url, { expires: wallNowMs + KLINE_CACHE_MS, version, body: text });
    return [answer[0], text];
  }

  /** Authenticate -> rate limit -> validate (in the dialect) -> region -> run, every failure in the exchange's shape. */
  private servePrivate(route: Route, req: IncomingMessage, raw: string): readonly [number, unknown] {
    const wallNowMs = this.deps.wallClock.nowMs();
    const auth = authenticate(req.headers, raw, route.path, this.deps.secrets, this.nonces, wallNowMs);
    if (!auth.ok) return [auth.status, auth.body];
    if (!this.gate.take(this.deps.dialect.endpoints[route.id].limit, auth.apiKey, wallNowMs)) return [429, TOO_MANY_REQUESTS];
    const checked = this.codec.decode(route.id, auth.body, this.deps.unknownFields);
    if (!checked.ok) {
      // main-account/transfer documents its request validation as HTTP 400 code 0; the order endpoints 422, codes 30-36.
      if (route.id === 'transfer') return [400, { code: 0, message: 'Validation failed', errors: checked.fieldErrors }];
      return [422, { code: this.validationCode(route.id, checked.fieldErrors), message: 'Validation failed', errors: checked.fieldErrors }];
    }
    const refused = regionRefusal(this.deps.region, route.id);
    if (refused !== undefined) return refused;
    const handler = PRIVATE_HANDLERS[route.id as keyof typeof PRIVATE_HANDLERS];
    try {
      const result = handler({ engine: this.deps.engine, apiKey: auth.apiKey, params: checked.value, now: this.deps.engine.now(), shapes: this.deps.dialect.shapes,
        issueWebsocketToken: (apiKey) => this.deps.wsTokens.issue(apiKey, wallNowMs) });
      return result instanceof PrivateAnswer ? [result.status, result.body] : [200, result];
    } catch (error) {
      if (error instanceof ExchangeRejectedError) {
        const errors: FieldErrors = {};
        for (const [field, messages] of Object.entries(error.fieldErrors)) errors[this.codec.wireName(route.id, field)] = [...messages];
        return [error.httpStatus ?? 400, { code: error.venueCode ?? 0, message: error.message, errors }];
      }
      throw error;
    }
  }

  /** One failing field decides the code (31 market, 32 amount, 33 price, 36 client order id); several: 30. */
  private validationCode(endpoint: WireEndpointId, errors: FieldErrors): number {
    const fields = Object.keys(errors);
    if (fields.length !== 1) return 30;
    return FIELD_CODES[this.codec.canonicalName(endpoint, fields[0] as string) ?? ''] ?? 30;
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

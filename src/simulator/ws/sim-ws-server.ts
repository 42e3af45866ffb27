import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Clock } from '../../core/clock';
import type { SimEngine } from '../engine/sim-engine';
import type { MarketFeed } from '../market/market-feed';
import { ACCOUNT_METHODS } from './ws-account-methods';
import { WsConnection } from './ws-connection';
import type { WsFaults } from './ws-faults';
import { MARKET_METHODS } from './ws-market-methods';
import type { WsMethod, WsMethodContext } from './ws-method';
import { OrderEventStream, type AccountPush } from './ws-order-events';
import { answerFrame, parseFrame, WS_ERRORS, WsRefusal, type WsRequest } from './ws-protocol';
import { WsTicks, type WsTickIntervals } from './ws-ticks';
import type { WsTokens } from './ws-tokens';

/** The path the venue serves its WebSocket API at (asyncapi `channels: /ws`, websocket/overview.mdx). */
export const WS_PATH = '/ws';

/** The venue's inactivity timeout (websocket/rate-limits.mdx "Connection timeout"). */
export const DEFAULT_WS_IDLE_TIMEOUT_MS = 60_000;

const METHODS: Readonly<Record<string, WsMethod>> = { ...MARKET_METHODS, ...ACCOUNT_METHODS };

export interface SimWsServerDeps {
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  readonly marketClock: Clock;
  readonly wallClock: Clock;
  readonly tokens: WsTokens;
  readonly faults: WsFaults;
  readonly idleTimeoutMs: number;
  readonly ticks: WsTickIntervals;
  /** Brings the engine up to the market clock (the HTTP server's syncMarket). */
  readonly syncMarket: () => void;
}

/**
 * The simulator's WebSocket twin: takes upgrades at `/ws` on the HTTP server's port and speaks the
 * venue's JSON-RPC (ws-protocol.ts) with the methods of ws-market-methods.ts and
 * ws-account-methods.ts; order and deal pushes come from the engine (ws-order-events.ts), candles,
 * prices and balances from timers (ws-ticks.ts). See docs/simulator.md "WebSocket API".
 */
export class SimWsServer {
  // autoPong off: a silent server must not answer transport pings either. maxPayload as the HTTP body limit.
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false, maxPayload: 1 << 20 });
  private readonly connections = new Map<WebSocket, WsConnection>();
  private readonly ticks: WsTicks;

  constructor(http: Server, private readonly deps: SimWsServerDeps) {
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    new OrderEventStream(deps.engine, (push) => this.deliver(push), () => this.connections.size > 0);
    this.ticks = new WsTicks(deps, () => this.connections.values(), deps.syncMarket, deps.ticks);
    deps.faults.onDropAll(() => {
      const n = this.connections.size;
      for (const conn of this.connections.values()) conn.terminate();
      return n;
    });
  }

  /** Closes every connection and stops the timers. */
  async close(): Promise<void> {
    this.ticks.stop();
    this.deps.faults.stop();
    for (const conn of this.connections.values()) conn.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if ((q === -1 ? url : url.slice(0, q)) !== WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    const conn = new WsConnection(ws, this.deps.faults, this.deps.idleTimeoutMs);
    this.connections.set(ws, conn);
    ws.on('message', (data: RawData, isBinary: boolean) => this.receive(ws, conn, data, isBinary));
    ws.on('ping', (data: Buffer) => conn.pongFrame(data));
    ws.on('close', () => {
      conn.dispose();
      this.connections.delete(ws);
    });
    ws.on('error', () => ws.terminate());
  }

  private receive(ws: WebSocket, conn: WsConnection, data: RawData, isBinary: boolean): void {
    conn.touch();
    // A binary frame is not JSON text: treated like invalid JSON.
    const frame = parseFrame(isBinary ? '\u0000' : rawText(data));
    if (frame.kind === 'invalidJson') {
      // "The server closes the WebSocket connection immediately if the client sends invalid JSON."
      conn.close();
      return;
    }
    if (frame.kind === 'malformed') {
      conn.refuse(frame.id);
      return;
    }
    if (!conn.takeRequest(this.deps.wallClock.nowMs())) {
      conn.refuse(frame.request.id, WS_ERRORS.tooManyRequests);
      return;
    }
    if (ws.readyState === ws.OPEN) this.run(conn, frame.request);
  }

  private run(conn: WsConnection, request: WsRequest): void {
    const method = Object.hasOwn(METHODS, request.method) ? METHODS[request.method] : undefined;
    if (method === undefined) return conn.refuse(request.id, WS_ERRORS.methodNotFound);
    if (method.private && conn.apiKey === undefined) return conn.refuse(request.id, WS_ERRORS.requireAuthentication);
    const ctx: WsMethodContext = {
      conn, engine: this.deps.engine, feed: this.deps.feed, marketClock: this.deps.marketClock,
      wallClock: this.deps.wallClock, tokens: this.deps.tokens,
    };
    try {
      this.deps.syncMarket();
      conn.answer(answerFrame(request.id, method.run(ctx, request.params)));
    } catch (error) {
      conn.refuse(request.id, error instanceof WsRefusal ? error.error : WS_ERRORS.internalError);
    }
  }

  private deliver(push: AccountPush): void {
    for (const conn of this.connections.values()) {
      if (conn.apiKey !== push.apiKey) continue;
      if (push.channel === 'ordersPending') {
        if (conn.subscriptions.ordersPending?.markets.has(push.market) === true) conn.push('ordersPending_update', push.params);
      } else {
        const deals = conn.subscriptions.deals;
        if (deals !== undefined && (deals.markets === undefined || deals.markets.has(push.market))) conn.push('deals_update', push.params);
      }
    }
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

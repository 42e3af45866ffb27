import { WebSocket, type RawData } from 'ws';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff';
import { MAX_FRAME_BYTES, parseStreamFrame } from './stream-frames';

/** One subscription of the registry: resent after every (re)connect. A subscribe replaces its channel's previous one. */
export interface StreamSubscription {
  /** `<channel>_subscribe`. */
  readonly method: string;
  readonly params: readonly unknown[];
}

export interface StreamTimings {
  /** Keep-alive: a JSON ping at least this often (the venue drops a connection after 60 s without a client message). */
  readonly pingIntervalMs: number;
  /** A ping or request unanswered this long: the socket is half-open, terminated. */
  readonly pongTimeoutMs: number;
  /** No frame at all for this long: the stream is stale (its concern falls back to REST) and the socket is replaced. */
  readonly staleAfterMs: number;
  readonly backoff: BackoffOptions;
}

export const DEFAULT_STREAM_TIMINGS: StreamTimings = { pingIntervalMs: 50_000, pongTimeoutMs: 10_000, staleAfterMs: 15_000, backoff: DEFAULT_BACKOFF };

/** What the supervisor reports (metrics, logs). Never a token or a frame's content. */
export interface StreamObserver {
  connected?(up: boolean): void;
  message?(method: string): void;
  invalid?(reason: string): void;
  reconnect?(delayMs: number, cause: string): void;
  resync?(): void;
  staleFallback?(): void;
  /** true once subscribed and resynced; false on stale, close or failure. */
  health?(healthy: boolean): void;
}

export interface StreamSupervisorOptions {
  /** For logs and metric labels: `account`, `market`, ... */
  readonly name: string;
  readonly url: string;
  readonly timings: StreamTimings;
  /** Private streams: a fresh token per connection (POST /api/v4/profile/websocket_token through the signed client). */
  readonly token?: () => Promise<string>;
  /** Query-then-subscribe: `before` runs before the subscriptions are sent, `after` once they are confirmed. */
  readonly resync?: (phase: 'before' | 'after') => Promise<void>;
  readonly onPush: (method: string, params: readonly unknown[]) => void;
  readonly observer?: StreamObserver;
  readonly now?: () => number;
  readonly random?: () => number;
}

class StreamRequestError extends Error {}

/**
 * One WebSocket connection to the venue, kept alive: connect, (private) fresh token and `authorize`,
 * resync and resubscribe from the registry, JSON ping on a timer and as a probe when the line is
 * quiet, a pong watch and a staleness watchdog that terminate a half-open or silent socket, then
 * reconnect with jittered backoff (1 s .. 30 s). Nothing it receives is trusted (stream-frames.ts);
 * nothing it does throws to its caller.
 */
export class StreamSupervisor {
  private readonly registry = new Map<string, StreamSubscription>();
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private socket: WebSocket | undefined;
  private nextId = 1;
  private attempt = 0;
  private stopped = true;
  private healthy = false;
  private live = false;
  private lastInboundMs = 0;
  private lastPingMs = 0;
  private watchTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly o: StreamSupervisorOptions) {
    this.now = o.now ?? Date.now;
  }

  get name(): string {
    return this.o.name;
  }

  /** Subscribed, resynced and not stale: its concern may rely on it. */
  isHealthy(): boolean {
    return this.healthy;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.drop('stopped');
  }

  /** Adds or replaces (same method) a subscription; sent now when the connection is live. */
  subscribe(sub: StreamSubscription): void {
    this.registry.set(sub.method, sub);
    if (this.live) this.request(sub.method, sub.params).catch(() => this.drop('subscribe refused'));
  }

  /** Closes the socket now (tests, the watchdog); the supervisor reconnects unless stopped. */
  terminate(cause = 'terminated'): void {
    this.drop(cause);
  }

  private connect(): void {
    if (this.stopped) return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.o.url, { maxPayload: MAX_FRAME_BYTES, handshakeTimeout: this.o.timings.pongTimeoutMs, perMessageDeflate: false });
    } catch {
      this.scheduleReconnect('bad url');
      return;
    }
    this.socket = ws;
    this.lastInboundMs = this.now();
    ws.on('open', () => {
      if (this.socket !== ws) return;
      this.o.observer?.connected?.(true);
      this.lastInboundMs = this.now();
      this.startWatch();
      this.session().then(
        () => { this.attempt = 0; },
        () => { if (this.socket === ws) this.drop('session setup failed'); },
      );
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.socket === ws) this.receive(data, isBinary);
    });
    ws.on('close', () => {
      if (this.socket === ws) this.drop('closed by the server');
    });
    ws.on('error', () => {
      if (this.socket === ws) this.drop('socket error');
    });
  }

  /** Token, authorize, query, subscribe, query again: the documented recovery, then healthy. */
  private async session(): Promise<void> {
    if (this.o.token !== undefined) {
      const token = await this.o.token();
      const answer = await this.request('authorize', [token, 'public']);
      if (!isSuccess(answer)) throw new StreamRequestError('authorize refused');
    }
    await this.o.resync?.('before');
    for (const sub of this.registry.values()) {
      if (!isSuccess(await this.request(sub.method, sub.params))) throw new StreamRequestError(`${sub.method} refused`);
    }
    this.live = true;
    // Events between the first query and the confirmed subscription were not pushed: asked again.
    await this.o.resync?.('after');
    this.o.observer?.resync?.();
    this.setHealthy(true);
  }

  private request(method: string, params: readonly unknown[]): Promise<unknown> {
    const ws = this.socket;
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return Promise.reject(new StreamRequestError('not connected'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new StreamRequestError(`${method} unanswered`));
        this.drop(`${method} unanswered within ${this.o.timings.pongTimeoutMs} ms`);
      }, this.o.timings.pongTimeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify({ id, method, params }));
    });
  }

  private receive(data: RawData, isBinary: boolean): void {
    this.lastInboundMs = this.now();
    const frame = parseStreamFrame(isBinary ? '' : rawText(data));
    if (frame.kind === 'invalid') {
      this.o.observer?.invalid?.(frame.reason);
      return;
    }
    if (frame.kind === 'answer') {
      const p = this.pending.get(frame.id);
      if (p === undefined) return;
      this.pending.delete(frame.id);
      clearTimeout(p.timer);
      if (frame.error !== null) p.reject(new StreamRequestError(`error ${frame.error.code}`));
      else p.resolve(frame.result);
      return;
    }
    this.o.observer?.message?.(frame.method);
    try {
      this.o.onPush(frame.method, frame.params);
    } catch {
      // A consumer's bug must not take the connection down; the consumer counts its own failures.
      this.o.observer?.invalid?.('consumer failed');
    }
  }

  /** Keep-alive ping, probe ping on a quiet line, and the staleness watchdog. */
  private startWatch(): void {
    const t = this.o.timings;
    const every = Math.max(50, Math.min(1000, Math.floor(t.staleAfterMs / 4)));
    this.stopWatch();
    this.lastPingMs = this.now();
    this.watchTimer = setInterval(() => {
      const now = this.now();
      const quiet = now - this.lastInboundMs;
      if (quiet > t.staleAfterMs) {
        if (this.healthy) this.o.observer?.staleFallback?.();
        this.drop(`no frame for ${quiet} ms`);
        return;
      }
      if (now - this.lastPingMs >= t.pingIntervalMs || (quiet >= t.staleAfterMs / 2 && now - this.lastPingMs >= t.staleAfterMs / 2)) {
        this.lastPingMs = now;
        this.request('ping', []).catch(() => undefined);
      }
    }, every);
    this.watchTimer.unref();
  }

  private stopWatch(): void {
    if (this.watchTimer !== undefined) clearInterval(this.watchTimer);
    this.watchTimer = undefined;
  }

  private setHealthy(healthy: boolean): void {
    if (this.healthy === healthy) return;
    this.healthy = healthy;
    // Our own stop is not a stream going unhealthy: reporting it printed `stream unhealthy` on every clean shutdown.
    if (!this.stopped) this.o.observer?.health?.(healthy);
  }

  /** Ends the current socket (if any) and its requests; reconnects unless stopped. Idempotent. */
  private drop(cause: string): void {
    const ws = this.socket;
    if (ws === undefined) return;
    this.socket = undefined;
    this.live = false;
    this.stopWatch();
    this.setHealthy(false);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new StreamRequestError('connection closed'));
    }
    this.pending.clear();
    ws.removeAllListeners();
    ws.on('error', () => undefined);
    ws.terminate();
    this.o.observer?.connected?.(false);
    this.scheduleReconnect(cause);
  }

  private scheduleReconnect(cause: string): void {
    if (this.stopped) return;
    const delay = backoffDelayMs(this.attempt, this.o.timings.backoff, this.o.random);
    this.attempt += 1;
    this.o.observer?.reconnect?.(delay, cause);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
    this.retryTimer.unref();
  }
}

function isSuccess(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 'success';
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

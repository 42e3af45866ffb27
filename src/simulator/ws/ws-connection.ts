import type { WebSocket } from 'ws';
import { errorFrame, pushFrame, WS_ERRORS, type WsError } from './ws-protocol';
import type { WsFaults } from './ws-faults';

/** Requests per connection per rolling minute (websocket/rate-limits.mdx). */
export const WS_REQUESTS_PER_MINUTE = 200;

/** What one connection is subscribed to. A subscribe replaces its channel's entry; unsubscribe deletes it. */
export interface WsSubscriptions {
  lastprice?: { readonly markets: readonly string[]; readonly sent: Map<string, string> };
  candles?: { readonly market: string; readonly intervalSeconds: number };
  /** `assets` undefined = every asset. `seen`: what the connection was last told (or had at subscribe). */
  balanceSpot?: { readonly assets: ReadonlySet<string> | undefined; readonly seen: Map<string, string> };
  ordersPending?: { readonly markets: ReadonlySet<string> };
  /** `markets` undefined = every market (`[[]]`). */
  deals?: { readonly markets: ReadonlySet<string> | undefined };
}

/**
 * One client connection: its authorization, subscriptions, idle timer, request rate window, and the
 * way out for answers and pushes (through the fault switches). Everything sent passes `sendText`.
 */
export class WsConnection {
  apiKey: string | undefined;
  readonly subscriptions: WsSubscriptions = {};
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly requestTimes: number[] = [];
  private readonly delayed = new Set<NodeJS.Timeout>();

  constructor(
    private readonly socket: WebSocket,
    private readonly faults: WsFaults,
    private readonly idleTimeoutMs: number,
  ) {
    this.touch();
  }

  /** A client message arrived: the 60 s inactivity window starts again (rate-limits.mdx "Connection timeout"). */
  touch(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.socket.terminate(), this.idleTimeoutMs);
    this.idleTimer.unref();
  }

  /** False when this request is over the per-connection limit. */
  takeRequest(nowMs: number): boolean {
    while (this.requestTimes.length > 0 && (this.requestTimes[0] as number) <= nowMs - 60_000) this.requestTimes.shift();
    if (this.requestTimes.length >= WS_REQUESTS_PER_MINUTE) return false;
    this.requestTimes.push(nowMs);
    return true;
  }

  answer(text: string): void {
    this.sendText(text);
  }

  refuse(id: number | null, error: WsError = WS_ERRORS.invalidArgument): void {
    this.sendText(errorFrame(id, error));
  }

  /** A push: delayed and/or doubled when those faults are on. */
  push(method: string, params: readonly unknown[]): void {
    const text = pushFrame(method, params);
    const { pushDelayMs, duplicatePushes } = this.faults.current();
    const times = duplicatePushes ? 2 : 1;
    for (let i = 0; i < times; i += 1) {
      if (pushDelayMs <= 0) {
        this.sendText(text);
        continue;
      }
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        this.sendText(text);
      }, pushDelayMs);
      this.delayed.add(timer);
    }
  }

  /** Answers the transport-level ping frame unless the server is silent (the docs do not promise it). */
  pongFrame(data: Buffer): void {
    if (!this.faults.current().silent && this.isOpen()) this.socket.pong(data);
  }

  close(): void {
    this.socket.close(1000);
  }

  terminate(): void {
    this.socket.terminate();
  }

  /** Stops the timers; called when the socket has closed. */
  dispose(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
  }

  private isOpen(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  private sendText(text: string): void {
    // Silent: the connection stays up and nothing leaves it; what would have been sent is lost.
    if (this.faults.current().silent || !this.isOpen()) return;
    this.socket.send(text);
  }
}

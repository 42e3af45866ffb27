import type { ServerResponse } from 'node:http';
import type { DaemonEvent, DaemonEventBus } from '../domain/daemon-event';

/** What the page is told live (notifications hear the rest). */
const LIVE_TYPES: ReadonlySet<DaemonEvent['type']> = new Set(['candle', 'order', 'fill', 'trading_state', 'strategy_paused', 'guardrail', 'version_changed', 'drift']);
/** A client this far behind (a phone on a bad link) is cut off rather than buffered without end: it reconnects and re-reads. */
const MAX_BUFFERED_BYTES = 256 * 1024;
const HEARTBEAT_MS = 15_000;
const MAX_CLIENTS = 100;

/**
 * The console's Server-Sent Events: each daemon event the page shows, as `event: <type>` with the
 * event as JSON, and a comment every 15 s so proxies keep the connection. Sending never waits for a
 * client: a slow one is dropped (it reconnects), so no browser can slow the daemon.
 */
export class LiveEvents {
  private readonly clients = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(bus: DaemonEventBus) {
    this.unsubscribe = bus.subscribe((e) => {
      if (LIVE_TYPES.has(e.type)) this.send(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    });
    this.heartbeat = setInterval(() => this.send(': keep-alive\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Takes over the response; false when the client limit is reached (the caller answers 503). */
  attach(res: ServerResponse): boolean {
    if (this.clients.size >= MAX_CLIENTS) return false;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    res.write(': connected\n\n');
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    return true;
  }

  get count(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private send(frame: string): void {
    for (const res of this.clients) {
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        res.destroy();
        this.clients.delete(res);
      } else {
        res.write(frame);
      }
    }
  }
}

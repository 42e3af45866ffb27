import { createHmac } from 'node:crypto';
import { WebSocket } from 'ws';

/** Any frame the server sends: an answer `{id, result, error}` or a push `{id: null, method, params}`. */
export interface WsFrame {
  readonly id?: number | null;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

/**
 * A raw WebSocket client for tests against the simulator's `/ws`: every frame received is queued and
 * read in order with `next`, so a test states exactly the sequence it expects.
 */
export class WsTestClient {
  readonly received: unknown[] = [];
  closed = false;
  private waiters: (() => void)[] = [];
  private nextId = 1;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(String(data)));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static async connect(url: string): Promise<WsTestClient> {
    const socket = new WebSocket(url);
    const client = new WsTestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /** Sends `{id, method, params}` and waits for the answer with that id (pushes meanwhile stay queued). */
  async call(method: string, params: unknown[] = []): Promise<{ id: number; result: unknown; error: unknown }> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return (await this.next((m) => m.id === id)) as { id: number; result: unknown; error: unknown };
  }

  /** The first queued frame matching `match` (removed from the queue), waiting up to `timeoutMs`. */
  async next(match: (m: WsFrame) => boolean = () => true, timeoutMs = 10_000): Promise<WsFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.received.findIndex((m) => match(m as WsFrame));
      if (i !== -1) return this.received.splice(i, 1)[0] as WsFrame;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) throw new Error(`no matching frame (closed: ${this.closed}); queued: ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next push of `method` (answers and other pushes stay queued). */
  push(method: string, timeoutMs?: number): Promise<WsFrame> {
    return this.next((m) => m.id === null && m.method === method, timeoutMs);
  }

  /** Pushes of `method` queued now (removed). */
  drain(method: string): WsFrame[] {
    const out: WsFrame[] = [];
    for (let i = this.received.length - 1; i >= 0; i -= 1) {
      const m = this.received[i] as WsFrame;
      if (m.id === null && m.method === method) out.unshift(...this.received.splice(i, 1) as WsFrame[]);
    }
    return out;
  }

  async waitClosed(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('socket still open');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.terminate();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** A signed private POST to the simulator (the venue's X-TXC-* scheme); returns status and JSON body. */
export async function signedPost(baseUrl: string, path: string, apiKey: string, secret: string, body: Record<string, unknown> = {}): Promise<{ status: number; body: unknown }> {
  const raw = JSON.stringify({ request: path, nonce: String(Date.now()), nonceWindow: true, ...body });
  const payload = Buffer.from(raw).toString('base64');
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST', body: raw,
    headers: {
      'Content-Type': 'application/json', 'X-TXC-APIKEY': apiKey, 'X-TXC-PAYLOAD': payload,
      'X-TXC-SIGNATURE': createHmac('sha512', secret).update(payload).digest('hex'),
    },
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? '' : JSON.parse(text) };
}

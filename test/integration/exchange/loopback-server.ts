import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';

/** A tiny real HTTP server on 127.0.0.1 for the exchange-client tests (no HTTP mocking library). */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}
export interface Reply {
  readonly status?: number;
  /** An object is sent as JSON; a string as is. */
  readonly body?: unknown;
  /** Never answer (to provoke a client timeout). */
  readonly hang?: boolean;
  /** Extra response headers (a redirect's Location). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Answers by hand instead (a body that never ends, a huge one); status and body are ignored. */
  readonly respond?: (res: ServerResponse) => void;
}
export interface LoopbackServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: (req: SeenRequest, index: number) => Reply): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(seen);
      const reply = handler(seen, requests.length - 1);
      if (reply.hang) return;
      if (reply.respond !== undefined) return reply.respond(res);
      const text = typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A URL on a port nobody listens on (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const address = s.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Servers for one test file: `server(handler)` starts one and keeps it, and an afterEach closes every
 * server the test started (call this at the top level of the file).
 */
export function serversClosedAfterEach(): (handler: (req: SeenRequest, index: number) => Reply) => Promise<LoopbackServer> {
  const servers: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (handler) => {
    const s = await startServer(handler);
    servers.push(s);
    return s;
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { StoreUnavailableError } from '../domain/errors';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';
import { AuthFailures } from './auth-failures';
import type { LiveEvents } from './live-events';
import { pathMatcher, type Route } from './routes';
import type { StaticFile } from './static-files';
import type { TokenBook } from './token-book';

export interface ConsoleServerOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly Route[];
  readonly openApi: object;
  readonly tokens: TokenBook;
  readonly files: ReadonlyMap<string, StaticFile>;
  readonly live: LiveEvents;
  readonly maxAuthFailuresPerMinute: number;
  readonly metrics: Metrics;
  readonly log: Logger;
}

export interface ConsoleServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024;
/** What every answer carries: nothing may frame, sniff, refer or cache it; scripts and styles only from here. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-resource-policy': 'same-origin',
};

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * The console's listener: the page's static files without a token (they hold no data), and the API
 * under /api/v1 with a bearer token on every call. No cookies, so no request can ride on a browser's
 * session (no CSRF); no CORS headers, so no other origin's script can read an answer; a POST must be
 * JSON. Errors answer `{ error, code }` naming what is wrong, never a token or a stack.
 */
export async function startConsoleServer(o: ConsoleServerOptions): Promise<ConsoleServer> {
  const failures = new AuthFailures(o.maxAuthFailuresPerMinute);
  const matchers = o.routes.map((route) => ({ route, match: pathMatcher(route.path) }));
  const server: Server = createServer((req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof HttpError ? err
        : err instanceof StoreUnavailableError ? new HttpError(503, 'store_unavailable', 'the store (Redis) is unavailable: try again')
          : new HttpError(500, 'internal', 'internal error (logged by the daemon)');
      if (e.status === 500) o.log.error({ err, path: pathOf(req) }, 'console request failed');
      answer(res, e.status, { error: e.message, code: e.code });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const method = req.method ?? 'GET';
    if (!url.pathname.startsWith('/api/')) return serveFile(url.pathname, method, res);
    let routeLabel = 'other';
    res.on('finish', () => o.metrics.consoleRequests.inc({ route: routeLabel, status: String(res.statusCode) }));
    if (method !== 'GET' && method !== 'POST') throw new HttpError(405, 'method_not_allowed', `${method} is not allowed (no CORS: the console answers only its own page)`);
    const who = authenticate(req);
    if (url.pathname === '/api/v1/openapi.json' && method === 'GET') {
      routeLabel = url.pathname;
      return answer(res, 200, o.openApi);
    }
    if (url.pathname === '/api/v1/events' && method === 'GET') {
      routeLabel = url.pathname;
      if (!o.live.attach(res)) throw new HttpError(503, 'too_many_streams', 'too many live connections: try again later');
      return undefined;
    }
    let found: { route: Route; params: Record<string, string> } | undefined;
    let pathKnown = false;
    for (const m of matchers) {
      let params: Record<string, string> | undefined;
      try {
        params = m.match(url.pathname);
      } catch {
        throw new HttpError(400, 'bad_path', 'the path is not valid percent-encoding');
      }
      if (params === undefined) continue;
      pathKnown = true;
      if (m.route.method === method) found = { route: m.route, params };
    }
    if (found === undefined) throw pathKnown ? new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`) : new HttpError(404, 'not_found', `no endpoint ${url.pathname} (the API is described at /api/v1/openapi.json)`);
    const route = found.route;
    routeLabel = route.path;
    if (route.role === 'operator' && who.role !== 'operator') {
      o.metrics.consoleAuthFailures.inc({ reason: 'forbidden' });
      throw new HttpError(403, 'forbidden', `the token ${who.name} is a viewer token: it may not ${route.summary.split(':')[0]}`);
    }
    const params = route.params === undefined ? {} : parse(route.params, found.params, 'path');
    const query = parse(route.query ?? z.strictObject({}), Object.fromEntries(url.searchParams), 'query parameter');
    const body = method === 'POST' ? parse(route.body ?? z.strictObject({}), await readJson(req), 'body') : undefined;
    return answer(res, 200, await route.handle({ params: params as Record<string, string>, query, body, who }));
  }

  function authenticate(req: IncomingMessage): { name: string; role: 'viewer' | 'operator' } {
    const address = req.socket.remoteAddress ?? 'unknown';
    if (failures.blocked(address)) {
      o.metrics.consoleAuthFailures.inc({ reason: 'blocked' });
      throw new HttpError(429, 'too_many_failures', 'too many failed authentications from this address: wait a minute');
    }
    const header = req.headers.authorization;
    const who = o.tokens.identify(header);
    if (who === undefined || who === null) {
      failures.record(address);
      const reason = who === undefined ? 'missing' : 'invalid';
      o.metrics.consoleAuthFailures.inc({ reason });
      o.log.warn({ address, reason, path: pathOf(req) }, 'console authentication failed');
      throw new HttpError(401, 'unauthorized', who === undefined ? 'send the header Authorization: Bearer <token>' : 'the token matches none configured (console.tokens)');
    }
    return who;
  }

  function serveFile(path: string, method: string, res: ServerResponse): void {
    const file = o.files.get(path);
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`);
    if (file === undefined) throw new HttpError(404, 'not_found', `no file ${path}`);
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length });
    res.end(method === 'HEAD' ? undefined : file.body);
  }

  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      o.live.close();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]!.slice(0, 200);
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const where = issue.path.length > 0 ? `${what} ${issue.path.join('.')}` : what;
  const unknown = issue.code === 'unrecognized_keys' ? `: unknown ${issue.keys.join(', ')}` : `: ${issue.message}`;
  throw new HttpError(400, 'bad_request', `${where}${unknown}`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'unsupported_media_type', 'send the body as Content-Type: application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'bad_json', 'the body is not valid JSON');
  }
}

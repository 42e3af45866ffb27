import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import Redis from 'ioredis';
import { tokenSha256 } from '../../../src/console/token-book';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { runCli } from '../../helpers/run-cli';
import { DaemonProcess, paperConfig, requireBuild, ROOT, writeConfig, type LogLine } from '../app/daemon-process';

/**
 * The operator's console API on two daemon replicas (real child processes, paper mode, one Redis,
 * one simulated venue reached by URL): every endpoint answers what the served OpenAPI document says
 * and both replicas answer the same; tokens and roles hold (401, 403, 429 per address); each action
 * goes through the operator's path (applied by both replicas) and lands in the audit log with who
 * did it; a cancel reaches the replica that holds the order's lease; no token shows in a log line or
 * in /metrics. Both replicas notify a webhook receiver and a fake Telegram Bot API on loopback: each
 * event arrives once per channel (claimed in Redis), the console's pause with who and why.
 */
jest.setTimeout(120_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbconsole${process.pid}`;
const OPERATOR = 'op-token-0123456789abcdefghijklmnopqrstuvwxyz';
let VIEWER = '';
const API_KEY = 'console-key';
const API_SECRET = 'console-secret';
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;

interface Reply { status: number; body: unknown; text: string }

/** One HTTP call from `localAddress` (another loopback address gets its own failure count). */
function call(url: string, o: { method?: string; token?: string; body?: unknown; contentType?: string | null; localAddress?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const headers: Record<string, string> = {};
    if (o.token !== undefined) headers['authorization'] = `Bearer ${o.token}`;
    if (payload !== undefined && o.contentType !== null) headers['content-type'] = o.contentType ?? 'application/json';
    const req = request(url, { method: o.method ?? 'GET', headers, ...(o.localAddress === undefined ? {} : { localAddress: o.localAddress }) }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const BOT_TOKEN = '123456789:AAH-console-test-bot-token_0123456789';

/** A loopback receiver keeping every JSON body it gets (the webhook, and Telegram's sendMessage). */
async function receiver(): Promise<{ server: Server; url: string; bodies: { path: string; body: Record<string, unknown> }[] }> {
  const bodies: { path: string; body: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true,"result":{}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

let sim: SimulatedExchange;
const servers: Server[] = [];
let secretsDir: string | undefined;
const daemons: DaemonProcess[] = [];
let redis: Redis;
let cleanup: (() => void) | undefined;

beforeAll(() => {
  requireBuild();
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.kill()));
  await sim?.close();
  for (const s of servers) s.close();
  if (secretsDir !== undefined) rmSync(secretsDir, { recursive: true, force: true });
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  cleanup?.();
});

test('two replicas: every answer matches the OpenAPI document and both answer the same; tokens, roles, audit and actions through the operator path', async () => {
  sim = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '1' },
    markets: [{ name: 'BTC_USDT', csvPath: `${ROOT}/config/data/btc_usdt-1m-sample.csv` }], start: 1631917380 + 600, speed: 600, seed: 3,
  });
  // The viewer's token as an operator makes one: `tradebot console-token` prints it and its config entry.
  const minted = await runCli(['console-token', '--name', 'viewer1', '--role', 'viewer']);
  VIEWER = /^token: (\S+)$/m.exec(minted.stdout)![1]!;
  expect(minted.stdout).toContain(`- { name: viewer1, role: viewer, sha256: ${tokenSha256(VIEWER)} }`);
  const hook = await receiver();
  const telegram = await receiver();
  servers.push(hook.server, telegram.server);
  secretsDir = mkdtempSync(path.join(tmpdir(), 'tb-console-secrets-'));
  writeFileSync(path.join(secretsDir, 'bot-token'), `${BOT_TOKEN}\n`, { mode: 0o600 });
  const config = writeConfig(paperConfig({
    paper: { exchangeUrl: sim.url },
    notifications: {
      enabled: true,
      channels: [
        { type: 'webhook', name: 'hook', template: 'generic', url: `${hook.url}/hook` },
        { type: 'telegram', name: 'phone', botTokenFile: path.join(secretsDir, 'bot-token'), chatId: '42', apiUrl: telegram.url },
      ],
    },
    console: {
      enabled: true, port: 0, maxAuthFailuresPerMinute: 3,
      tokens: [{ name: 'op1', role: 'operator', sha256: tokenSha256(OPERATOR) }, { name: 'viewer1', role: 'viewer', sha256: tokenSha256(VIEWER) }],
    },
  }));
  cleanup = config.cleanup;
  const env = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX, TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  daemons.push(new DaemonProcess(['run', '--config', config.file], env), new DaemonProcess(['run', '--config', config.file], env));
  const [a, b] = daemons as [DaemonProcess, DaemonProcess];
  const urls = await Promise.all(daemons.map(async (d) => (await d.waitForLine(msg('console listening'), 40_000, 'the console'))['url'] as string));
  await Promise.all(daemons.map((d) => d.waitForLine(msg('tradebot started'), 40_000, 'start')));
  await a.waitForLine(() => a.count(msg('order submitted')) + b.count(msg('order submitted')) >= 3, 40_000, 'a few orders');
  const [urlA, urlB] = urls as [string, string];

  // The document: OpenAPI 3.1, one operation per route, every answer validated against it.
  const doc = (await call(`${urlA}/api/v1/openapi.json`, { token: VIEWER })).body as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };
  expect(doc.openapi).toBe('3.1.0');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = (path: string, method: string, status: number, body: unknown): void => {
    const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`the document has no ${status} answer for ${method.toUpperCase()} ${path}`);
    const check = ajv.compile(schema);
    if (!check(body)) throw new Error(`${method.toUpperCase()} ${path} (${status}) does not match the document: ${ajv.errorsText(check.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
  };
  const reads = ['/api/v1/whoami', '/api/v1/status', '/api/v1/strategies', '/api/v1/positions', '/api/v1/orders', '/api/v1/fills', '/api/v1/equity', '/api/v1/drift', '/api/v1/audit'];
  expect(Object.entries(doc.paths).flatMap(([p, ops]) => (ops['get'] === undefined || p === '/api/v1/events' ? [] : [p])).sort()).toEqual([...reads].sort());

  // Actions: a cancel through replica B reaches whichever replica holds the order's lease. Churn's
  // stop-limits rest until the price moves: wait for one resting, then cancel it at once.
  let target: { clientOrderId: string; status: string } | undefined;
  for (const until = Date.now() + 30_000; target === undefined && Date.now() < until;) {
    const open = (await call(`${urlB}/api/v1/orders?status=open`, { token: VIEWER })).body as { orders: { clientOrderId: string; status: string }[] };
    target = open.orders.find((o) => o.status === 'open');
    if (target === undefined) await new Promise((r) => setTimeout(r, 200));
  }
  expect(target).toBeDefined();
  const cancel = await call(`${urlB}/api/v1/orders/${encodeURIComponent(target!.clientOrderId)}/cancel`, { method: 'POST', token: OPERATOR, body: {} });
  validate('/api/v1/orders/{clientOrderId}/cancel', 'post', 200, cancel.body);
  // It may have filled in the same instant: then the daemon says so instead.
  expect((cancel.body as { message: string }).message).toMatch(new RegExp(`canceled ${target!.clientOrderId}|had already ended|already filled`));

  // Trading paused first, so nothing new is placed while the two replicas are compared.
  const pause = await call(`${urlA}/api/v1/trading-state`, { method: 'POST', token: OPERATOR, body: { state: 'halted', reason: 'console test: compare replicas' } });
  validate('/api/v1/trading-state', 'post', 200, pause.body);
  expect(pause.body).toMatchObject({ ok: true, applied: true, message: expect.stringContaining('applied by 2 running replicas') });
  for (const d of daemons) await d.waitForLine((l) => l.msg === 'trading state changed' && l['state'] === 'halted', 10_000, 'halted');

  // What changes by the second (clocks, TTLs, prices) is left out; the rest must be equal.
  const stable = (path: string, body: unknown): unknown => JSON.parse(JSON.stringify(body, (k, v: unknown) => {
    if (['atMs', 'marketTimeMs', 'ageMs', 'remainingMs', 'unrealizedPnl', 'lastPrice', 'answeredBy'].includes(k) && !(path === '/api/v1/audit' && k === 'atMs')) return undefined;
    if (k === 'points' && Array.isArray(v)) return v.slice(0, -1); // the last point adds the unrealised PnL at the last price
    return v;
  }));
  for (const path of reads) {
    let same = false;
    for (let attempt = 0; attempt < 10 && !same; attempt++) {
      const [ra, rb, ra2] = [await call(`${urlA}${path}`, { token: VIEWER }), await call(`${urlB}${path}`, { token: VIEWER }), await call(`${urlA}${path}`, { token: VIEWER })];
      for (const r of [ra, rb]) {
        expect([path, r.status]).toEqual([path, 200]);
        validate(path, 'get', 200, r.body);
      }
      const [sa, sb, sa2] = [stable(path, ra.body), stable(path, rb.body), stable(path, ra2.body)];
      if (JSON.stringify(sa) !== JSON.stringify(sa2)) continue; // moved meanwhile (a fill): read again
      expect([path, sb]).toEqual([path, sa]);
      same = true;
    }
    expect([path, same]).toEqual([path, true]);
  }
  const status = (await call(`${urlB}/api/v1/status`, { token: VIEWER })).body as { tradingState: { state: string; reason: string }; replicas: unknown[]; answeredBy: { ready: boolean; checks: Record<string, unknown>; streams: { stream: string }[] } };
  expect(status.tradingState).toMatchObject({ state: 'halted', reason: 'console:op1: console test: compare replicas' });
  // Each replica also says how it sees itself: its readiness checks (as /readyz) and its streams.
  expect(status.answeredBy).toMatchObject({ ready: true, checks: { redis: { ok: true }, exchange: { ok: true }, reconciled: { ok: true } } });
  expect(status.answeredBy.streams.map((x) => x.stream)).toContain('account');
  expect(status.replicas).toHaveLength(2);

  // Access: no token, a wrong one, a viewer acting; a malformed request names what is wrong.
  expect(await call(`${urlA}/api/v1/status`)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  expect(await call(`${urlA}/api/v1/status`, { token: 'not-a-token-but-long-enough' })).toMatchObject({ status: 401 });
  const forbidden = await call(`${urlA}/api/v1/trading-state`, { method: 'POST', token: VIEWER, body: { state: 'active', reason: 'viewer' } });
  expect(forbidden).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  validate('/api/v1/trading-state', 'post', 403, forbidden.body);
  expect(await call(`${urlA}/api/v1/orders?colour=red`, { token: VIEWER })).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour') } });
  expect(await call(`${urlA}/api/v1/trading-state`, { method: 'POST', token: OPERATOR, body: { state: 'active', reason: 'x', force: true } })).toMatchObject({ status: 400, body: { error: expect.stringContaining('force') } });
  expect(await call(`${urlA}/api/v1/trading-state`, { method: 'POST', token: OPERATOR, body: { state: 'active', reason: 'x' }, contentType: 'text/plain' })).toMatchObject({ status: 415 });
  expect(await call(`${urlA}/api/v1/status`, { method: 'OPTIONS', token: VIEWER })).toMatchObject({ status: 405 });
  const cors = await call(`${urlA}/api/v1/status`, { token: VIEWER });
  expect(cors.text).not.toContain('access-control');
  // A guesser from another address is blocked after 3 failures (429), even with a good token; 127.0.0.1 is not.
  for (let i = 0; i < 3; i++) expect((await call(`${urlA}/api/v1/status`, { token: `guess-${i}-0123456789abcdef`, localAddress: '127.0.0.2' })).status).toBe(401);
  expect((await call(`${urlA}/api/v1/status`, { token: VIEWER, localAddress: '127.0.0.2' })).status).toBe(429);
  expect((await call(`${urlA}/api/v1/status`, { token: VIEWER })).status).toBe(200);

  const unknownOrder = await call(`${urlB}/api/v1/orders/no-such-order/cancel`, { method: 'POST', token: OPERATOR, body: {} });
  expect(unknownOrder.body).toMatchObject({ ok: false, message: expect.stringContaining('no order no-such-order') });
  const notPaused = await call(`${urlA}/api/v1/strategies/churn/resume`, { method: 'POST', token: OPERATOR, body: {} });
  expect(notPaused.body).toMatchObject({ ok: true, message: expect.stringContaining('not paused') });
  // The CLI's action goes the same way and is audited as the CLI's.
  const cliResume = await runCli(['resume', '--config', config.file, '--reason', 'console test: cli resume'], { ...env, USER: 'alice' });
  expect(cliResume.code).toBe(0);
  const audit = (await call(`${urlB}/api/v1/audit?limit=10`, { token: VIEWER })).body as { entries: { who: string; via: string; action: string; result: string; target?: string }[] };
  expect(audit.entries.map((e) => [e.via, e.who, e.action, e.result])).toEqual(expect.arrayContaining([
    ['console', 'console:op1', 'pause', 'applied'], ['console', 'console:op1', 'strategy-resume', 'applied'], ['cli', 'cli:alice', 'resume', 'applied'],
    ['console', 'console:op1', 'cancel', (cancel.body as { ok: boolean }).ok ? 'applied' : 'refused'],
  ]));
  expect(audit.entries[0]).toMatchObject({ via: 'cli', action: 'resume' }); // newest first

  // Metrics count the refusals; no token appears in any log line, stderr or /metrics.
  const metricsUrl = (a.lines.find(msg('tradebot started'))!['metrics'] as string);
  const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
  expect(metrics).toMatch(/tradebot_console_auth_failures_total\{reason="forbidden"\} 1/);
  expect(metrics).toMatch(/tradebot_console_auth_failures_total\{reason="blocked"\} [1-9]/);
  expect(metrics).toMatch(/tradebot_console_requests_total\{route="\/api\/v1\/status",status="200"\} [1-9]/);
  for (const d of daemons) {
    const everything = `${JSON.stringify(d.lines)}${d.stderr}`;
    for (const token of [OPERATOR, VIEWER, tokenSha256(OPERATOR)]) expect(everything).not.toContain(token);
  }
  expect(metrics).not.toContain(OPERATOR);

  // Notifications: every event once per channel although both replicas heard most of them; the pause
  // names who and why. Sending is asynchronous: wait for the resume, the last action, to arrive.
  const hookEvents = (): { id: string; type: string; text: string }[] => hook.bodies.map((b) => b.body as unknown as { id: string; type: string; text: string });
  for (const until = Date.now() + 15_000; Date.now() < until && hookEvents().filter((e) => e.type === 'trading_state').length < 2;) await new Promise((r) => setTimeout(r, 200));
  const ids = hookEvents().map((e) => e.id);
  expect(ids.length).toBeGreaterThanOrEqual(2);
  expect(new Set(ids).size).toBe(ids.length);
  const states = hookEvents().filter((e) => e.type === 'trading_state');
  expect(states.map((e) => e.text)).toEqual([expect.stringContaining('console:op1: console test: compare replicas'), expect.stringContaining('console test: cli resume')]);
  for (const until = Date.now() + 10_000; Date.now() < until && telegram.bodies.length < hook.bodies.length;) await new Promise((r) => setTimeout(r, 200));
  expect(telegram.bodies.every((b) => b.path === `/bot${BOT_TOKEN}/sendMessage` && b.body['chat_id'] !== undefined)).toBe(true);
  expect(telegram.bodies.filter((b) => String(b.body['text']).includes('console:op1: console test: compare replicas'))).toHaveLength(1);
  for (const d of daemons) expect(`${JSON.stringify(d.lines)}${d.stderr}`).not.toContain(BOT_TOKEN);
});

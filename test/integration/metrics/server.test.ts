import { request } from 'node:http';
import { Registry } from 'prom-client';
import { StoreUnavailableError } from '../../../src/domain/errors';
import { createMetrics } from '../../../src/metrics/registry';
import { startMetricsServer, type MetricsServer } from '../../../src/metrics/server';

interface Answer { status: number; type: string | undefined; body: string }

function get(url: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('metrics server over loopback HTTP', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry, { version: 't' });
    metrics.exchangeRequests.inc({ api_endpoint: 'kline', outcome: 'ok' });
    server = await startMetricsServer({ registry, port: 0, host: '127.0.0.1' });
    const answer = await get(`${server.url}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe(registry.contentType);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.body).toContain('tradebot_exchange_requests_total{api_endpoint="kline",outcome="ok"} 1');
    expect(answer.body).toContain('tradebot_process_cpu_seconds_total');
  });

  it('answers /healthz from the liveness callback, and 404/405 elsewhere', async () => {
    let alive = true;
    server = await startMetricsServer({ registry: new Registry(), port: 0, host: '127.0.0.1', liveness: () => alive });
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
    alive = false;
    expect((await get(`${server.url}/healthz`)).status).toBe(503);
    expect((await get(`${server.url}/nope`)).status).toBe(404);
    expect((await get(`${server.url}/`)).status).toBe(404);
    expect((await get(`${server.url}/metrics`, 'POST')).status).toBe(405);
    expect((await get(`${server.url}/healthz?probe=1`, 'HEAD')).body).toBe('');
  });

  it('flips /readyz with its checks and names the failing ones', async () => {
    let redisUp = false;
    let reconciled = false;
    server = await startMetricsServer({
      registry: new Registry(), port: 0, host: '127.0.0.1', checkTimeoutMs: 200,
      readiness: [
        { name: 'redis', check: async () => { if (!redisUp) throw new StoreUnavailableError('down'); return true; } },
        { name: 'exchange', check: () => true },
        { name: 'reconciled', check: () => ({ ok: reconciled, reason: 'not_reconciled' }) },
        // An error text as reason must never reach the body (it could name hosts or carry a URL).
        { name: 'leaky', check: () => ({ ok: false, reason: 'connect ECONNREFUSED 10.0.0.7:6379 redis://:pw@x' }) },
      ],
    });
    const down = await get(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(down.type).toMatch(/application\/json/);
    expect(JSON.parse(down.body)).toEqual({
      status: 'not_ready',
      failing: ['redis', 'reconciled', 'leaky'],
      checks: {
        redis: { ok: false, reason: 'TB_ERR_STORE_UNAVAILABLE' },
        exchange: { ok: true },
        reconciled: { ok: false, reason: 'not_reconciled' },
        leaky: { ok: false, reason: 'failed' },
      },
    });
    redisUp = true;
    reconciled = true;
    const up = JSON.parse((await get(`${server.url}/readyz`)).body) as { failing: string[] };
    expect(up.failing).toEqual(['leaky']);
  });

  it('fails a check that does not answer in time', async () => {
    server = await startMetricsServer({
      registry: new Registry(), port: 0, host: '127.0.0.1', checkTimeoutMs: 50,
      readiness: [{ name: 'exchange', check: () => new Promise<boolean>(() => undefined) }],
    });
    const answer = await get(`${server.url}/readyz`);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).checks.exchange.reason).toBe('timeout');
  });

  it('is ready with no checks, closes twice safely and frees its port', async () => {
    server = await startMetricsServer({ registry: new Registry(), port: 0, host: '127.0.0.1' });
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
    const { port, url } = server;
    await Promise.all([server.close(), server.close()]);
    await expect(get(`${url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
    server = await startMetricsServer({ registry: new Registry(), port, host: '127.0.0.1' });
    expect(server.port).toBe(port);
  });

  it('refuses a port already in use with a ConfigError naming metrics.port', async () => {
    server = await startMetricsServer({ registry: new Registry(), port: 0, host: '127.0.0.1' });
    await expect(startMetricsServer({ registry: new Registry(), port: server.port, host: '127.0.0.1' }))
      .rejects.toMatchObject({ code: 'TB_ERR_CONFIG', context: { path: 'metrics.port' } });
  });
});

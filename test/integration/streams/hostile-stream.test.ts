import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { StreamSupervisor } from '../../../src/exchange/stream/stream-supervisor';
import { until } from '../execution/harness';

/**
 * The stream client against a hostile server over a real socket: garbage frames are counted and
 * ignored (the connection stays), a frame over the size limit ends the connection, and the
 * supervisor reconnects and resubscribes; nothing throws.
 */
let http: Server;
let wss: WebSocketServer;
let url: string;
const connections: WebSocket[] = [];
const received: string[] = [];

beforeEach(async () => {
  http = createServer();
  wss = new WebSocketServer({ server: http, path: '/ws' });
  wss.on('connection', (ws) => {
    connections.push(ws);
    ws.on('message', (data) => {
      const req = JSON.parse(String(data)) as { id: number; method: string };
      received.push(req.method);
      ws.send(JSON.stringify({ id: req.id, result: req.method === 'ping' ? 'pong' : { status: 'success' }, error: null }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
});

afterEach(async () => {
  for (const ws of connections) ws.terminate();
  connections.length = 0;
  received.length = 0;
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

test('garbage is counted and ignored, an oversized frame ends the connection, the supervisor comes back subscribed', async () => {
  const invalid: string[] = [];
  const pushes: string[] = [];
  let reconnects = 0;
  const s = new StreamSupervisor({
    name: 'test', url,
    timings: { pingIntervalMs: 5000, pongTimeoutMs: 1000, staleAfterMs: 5000, backoff: { baseMs: 20, maxMs: 50 } },
    onPush: (method) => {
      pushes.push(method);
      if (method === 'boom') throw new Error('consumer bug');
    },
    observer: { invalid: (r) => invalid.push(r), reconnect: () => { reconnects += 1; } },
  });
  s.subscribe({ method: 'lastprice_subscribe', params: ['BTC_USDT'] });
  s.start();
  try {
    await until(() => s.isHealthy());
    const ws = connections[0]!;
    for (const bad of ['not json', '[1,2]', '{"id":null,"method":7,"params":[]}', '{"id":"x"}']) ws.send(bad);
    ws.send(Buffer.from([0, 1, 2]), { binary: true });
    ws.send(JSON.stringify({ id: null, method: 'boom', params: [] }));
    ws.send(JSON.stringify({ id: null, method: 'lastprice_update', params: ['BTC_USDT', '1'] }));
    await until(() => pushes.includes('lastprice_update'));
    expect(invalid).toEqual(['not JSON', 'neither an answer nor a push', 'neither an answer nor a push', 'neither an answer nor a push', 'not JSON', 'consumer failed']);
    expect(s.isHealthy()).toBe(true);
    expect(reconnects).toBe(0);

    ws.send('x'.repeat((1 << 20) + 10)); // over maxPayload: the client closes this connection
    await until(() => connections.length === 2 && s.isHealthy());
    expect(reconnects).toBeGreaterThanOrEqual(1);
    expect(received.filter((m) => m === 'lastprice_subscribe')).toHaveLength(2); // resubscribed from the registry
  } finally {
    s.stop();
  }
});

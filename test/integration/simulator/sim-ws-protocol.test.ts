import type { CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { signedPost, WsTestClient } from '../../helpers/ws-test-client';

// The WebSocket twin over a real loopback socket: framing, service methods, idle drop, tokens and
// authorize, replace-on-subscribe, market channels, fault switches (docs/simulator.md "WebSocket API").
jest.setTimeout(60_000);

const KEY = 'ws-key';
const SECRET = 'ws-secret';
const T0 = 1_700_000_040;
const rows: CsvCandleRow[] = Array.from({ length: 30 }, (_, i) => ({
  time: T0 + i * 60, open: String(100 + i), high: String(101 + i), low: String(99 + i), close: String(100 + i), volume: '20',
}));

let sim: SimulatedExchange;
const clients: WsTestClient[] = [];

async function connect(): Promise<WsTestClient> {
  const c = await WsTestClient.connect(sim.wsUrl);
  clients.push(c);
  return c;
}

async function token(): Promise<string> {
  const res = await signedPost(sim.url, '/api/v4/profile/websocket_token', KEY, SECRET);
  expect(res.status).toBe(200);
  return (res.body as { websocket_token: string }).websocket_token;
}

async function start(ws: Parameters<typeof startSimulatedExchange>[0] extends infer O ? O extends { ws?: infer W } ? W : never : never = {}): Promise<void> {
  sim = await startSimulatedExchange({
    apiKey: KEY, apiSecret: SECRET, balances: { USDT: '10000', BTC: '1' }, markets: [{ name: 'BTC_USDT', rows }],
    speed: 0, start: T0, rateLimits: false,
    ws: { tickIntervals: { candlesMs: 100, lastpriceMs: 100, balanceMs: 100 }, ...ws },
  });
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await sim.close();
});

describe('framing and service methods', () => {
  beforeEach(() => start());

  test('the WebSocket API is served at /ws on the HTTP port; other upgrade paths are refused', async () => {
    expect(sim.wsUrl).toBe(sim.url.replace('http://', 'ws://') + '/ws');
    await expect(WsTestClient.connect(sim.url.replace('http://', 'ws://') + '/other')).rejects.toThrow(/404/);
  });

  test('ping answers pong and time the wall clock in integer seconds, in the documented envelope', async () => {
    const c = await connect();
    expect(await c.call('ping')).toEqual({ id: 1, result: 'pong', error: null });
    const time = await c.call('time');
    expect(time.error).toBeNull();
    expect(Number.isInteger(time.result)).toBe(true);
    expect(Math.abs((time.result as number) - Date.now() / 1000)).toBeLessThan(300);
  });

  test('unknown method: code 4; malformed request: code 1; never silence', async () => {
    const c = await connect();
    expect(await c.call('depth_subscribe', ['BTC_USDT', 5, '0', true])).toEqual({ id: 1, result: null, error: { code: 4, message: 'method not found' } });
    c.sendRaw(JSON.stringify({ id: 7, method: 'ping' }));
    expect(await c.next()).toEqual({ id: 7, result: null, error: { code: 1, message: 'invalid argument' } });
    c.sendRaw(JSON.stringify([1, 2]));
    expect(await c.next()).toEqual({ id: null, result: null, error: { code: 1, message: 'invalid argument' } });
    expect(await c.call('lastprice_subscribe', ['NOPE_USDT'])).toMatchObject({ result: null, error: { code: 1 } });
    expect(await c.call('candles_subscribe', ['BTC_USDT', 7])).toMatchObject({ result: null, error: { code: 1 } });
    expect(await c.call('lastprice_unsubscribe', ['BTC_USDT'])).toMatchObject({ result: null, error: { code: 1 } });
  });

  test('invalid JSON closes the socket without an answer', async () => {
    const c = await connect();
    c.sendRaw('{"id": 1, "method": ');
    await c.waitClosed();
    expect(c.received).toEqual([]);
  });

  test('over 200 requests in a minute on one connection: code 7', async () => {
    const c = await connect();
    for (let i = 0; i < 200; i += 1) c.sendRaw(JSON.stringify({ id: i + 100, method: 'ping', params: [] }));
    expect(await c.call('ping')).toEqual({ id: 1, result: null, error: { code: 7, message: 'too many requests' } });
    expect(c.received.filter((m) => (m as { error: unknown }).error !== null)).toEqual([]);
  });

  test('private methods before authorize: code 6', async () => {
    const c = await connect();
    expect(await c.call('balanceSpot_request', [])).toEqual({ id: 1, result: null, error: { code: 6, message: 'require authentication' } });
    expect(await c.call('ordersPending_subscribe', ['BTC_USDT'])).toMatchObject({ error: { code: 6 } });
  });
});

describe('idle drop', () => {
  test('a connection that sends nothing is dropped after the idle time; messages keep it open', async () => {
    await start({ idleTimeoutMs: 3000 }); // keep-alive every 300 ms: a wide margin on a loaded machine
    const quiet = await connect();
    const framePinging = await connect(); // transport-level pings are not client messages
    const talking = await connect();
    const keepAlive = setInterval(() => {
      talking.sendRaw(JSON.stringify({ id: 0, method: 'ping', params: [] }));
      framePinging.socket.ping();
    }, 300);
    try {
      await quiet.waitClosed(20_000);
      await framePinging.waitClosed(20_000);
      expect(talking.closed).toBe(false);
    } finally {
      clearInterval(keepAlive);
    }
    await talking.waitClosed(20_000);
  });
});

describe('tokens and authorize', () => {
  test('a token from profile/websocket_token authorizes; unknown, wrong scope or expired tokens get code 1', async () => {
    await start({ tokenTtlMs: 5000 });
    const c = await connect();
    const t = await token();
    expect(t).toMatch(/^sim-ws-[0-9a-f]{32}$/);
    expect(await c.call('authorize', ['sim-ws-not-issued', 'public'])).toEqual({ id: 1, result: null, error: { code: 1, message: 'invalid argument' } });
    expect(await c.call('authorize', [t, 'private'])).toMatchObject({ result: null, error: { code: 1 } });
    expect(await c.call('authorize', [t])).toMatchObject({ result: null, error: { code: 1 } });
    expect(await c.call('authorize', [t, 'public'])).toEqual({ id: 4, result: { status: 'success' }, error: null });
    expect(await c.call('balanceSpot_request', ['USDT'])).toEqual({ id: 5, result: { USDT: { available: '10000', freeze: '0' } }, error: null });

    const late = await connect();
    const old = await token();
    await new Promise((r) => setTimeout(r, 5500));
    expect(await late.call('authorize', [old, 'public'])).toMatchObject({ result: null, error: { code: 1, message: 'invalid argument' } });
    expect(await late.call('balanceSpot_request', [])).toMatchObject({ error: { code: 6 } });
  });
});

describe('market channels', () => {
  beforeEach(() => start());

  test('candles_request returns [time, open, close, high, low, volume, deal, market] rows', async () => {
    sim.advanceBy(180);
    const c = await connect();
    const res = await c.call('candles_request', ['BTC_USDT', T0, T0 + 120, 60]);
    expect(res.error).toBeNull();
    expect(res.result).toEqual([
      [T0, '100.00', '100.00', '101.00', '99.00', '20', '2000', 'BTC_USDT'],
      [T0 + 60, '101.00', '101.00', '102.00', '100.00', '20', '2020', 'BTC_USDT'],
      [T0 + 120, '102.00', '102.00', '103.00', '101.00', '20', '2040', 'BTC_USDT'],
    ]);
  });

  test('candles_subscribe pushes the current candle; a new subscribe replaces the previous one', async () => {
    sim.advanceBy(150);
    const c = await connect();
    expect(await c.call('candles_subscribe', ['BTC_USDT', 60])).toEqual({ id: 1, result: { status: 'success' }, error: null });
    const first = await c.push('candles_update');
    expect(first.params).toEqual([[T0 + 120, '102.00', expect.any(String), expect.any(String), expect.any(String), expect.any(String), expect.any(String), 'BTC_USDT']]);
    expect(await c.call('candles_subscribe', ['BTC_USDT', 3600])).toMatchObject({ result: { status: 'success' } });
    c.drain('candles_update');
    const replaced = await c.push('candles_update');
    expect((replaced.params as unknown[][])[0]![0]).toBe(Math.floor((T0 + 150) / 3600) * 3600);
    expect(await c.call('candles_unsubscribe', [])).toMatchObject({ result: { status: 'success' } });
    c.drain('candles_update');
    await new Promise((r) => setTimeout(r, 600));
    expect(c.drain('candles_update')).toEqual([]);
  });

  test('lastprice: request, and pushes only when the price changed', async () => {
    const c = await connect();
    expect(await c.call('lastprice_request', ['BTC_USDT'])).toEqual({ id: 1, result: '100.00', error: null });
    expect(await c.call('lastprice_subscribe', [])).toMatchObject({ error: { code: 1 } });
    await c.call('lastprice_subscribe', ['BTC_USDT']);
    expect((await c.push('lastprice_update')).params).toEqual(['BTC_USDT', '100.00']);
    await new Promise((r) => setTimeout(r, 500));
    expect(c.drain('lastprice_update')).toEqual([]);
    sim.advanceBy(120); // the candle T0+60 closed at 101
    expect((await c.push('lastprice_update')).params).toEqual(['BTC_USDT', '101.00']);
  });
});

describe('fault switches', () => {
  beforeEach(() => start());

  test('dropAll closes every connection', async () => {
    const a = await connect();
    const b = await connect();
    expect(sim.wsFaults.dropAll()).toBe(2);
    await a.waitClosed();
    await b.waitClosed();
    const again = await connect();
    expect(await again.call('ping')).toMatchObject({ result: 'pong' });
  });

  test('silent: the connection stays open, no pong and no push, until switched off', async () => {
    const c = await connect();
    await c.call('lastprice_subscribe', ['BTC_USDT']);
    await c.push('lastprice_update');
    sim.wsFaults.configure({ silent: true });
    c.sendRaw(JSON.stringify({ id: 50, method: 'ping', params: [] }));
    sim.advanceBy(60);
    await new Promise((r) => setTimeout(r, 800));
    expect(c.received).toEqual([]);
    expect(c.closed).toBe(false);
    sim.wsFaults.configure({ silent: false });
    expect(await c.call('ping')).toMatchObject({ result: 'pong' });
  });

  test('silent also withholds transport-level pongs (which the docs do not promise anyway)', async () => {
    const c = await connect();
    let pongs = 0;
    c.socket.on('pong', () => { pongs += 1; });
    c.socket.ping();
    await c.call('ping');
    await new Promise((r) => setTimeout(r, 200));
    expect(pongs).toBe(1);
    sim.wsFaults.configure({ silent: true });
    c.socket.ping();
    await new Promise((r) => setTimeout(r, 800));
    expect(pongs).toBe(1);
  });

  test('pushDelayMs delays pushes; duplicatePushes sends each push twice', async () => {
    const c = await connect();
    sim.wsFaults.configure({ pushDelayMs: 1500 });
    await c.call('lastprice_subscribe', ['BTC_USDT']);
    const subscribedAt = Date.now();
    await c.push('lastprice_update');
    expect(Date.now() - subscribedAt).toBeGreaterThanOrEqual(1400);

    sim.wsFaults.configure({ pushDelayMs: 0, duplicatePushes: true });
    sim.advanceBy(120);
    const one = await c.push('lastprice_update');
    const two = await c.push('lastprice_update');
    expect(two).toEqual(one);
    expect(one.params).toEqual(['BTC_USDT', '101.00']);
  });

  test('dropEveryMs closes connections periodically until switched off', async () => {
    sim.wsFaults.configure({ dropEveryMs: 300 });
    const c = await connect();
    await c.waitClosed();
    sim.wsFaults.configure({ dropEveryMs: 0 });
    const kept = await connect();
    await new Promise((r) => setTimeout(r, 900));
    expect(kept.closed).toBe(false);
  });

  test('faults can be set at start', async () => {
    await sim.close();
    await start({ faults: { duplicatePushes: true } });
    const c = await connect();
    await c.call('lastprice_subscribe', ['BTC_USDT']);
    expect(await c.push('lastprice_update')).toEqual(await c.push('lastprice_update'));
  });
});

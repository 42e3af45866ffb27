import { parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

const minimal = (exchange: Record<string, unknown> = {}): Record<string, unknown> => ({
  mode: 'paper',
  paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
  strategies: { enabled: [{ name: 'sma-cross' }] },
  exchange,
});

function refused(exchange: Record<string, unknown>, path: string, message: RegExp): void {
  let caught: unknown;
  try {
    parseConfig(minimal(exchange), {});
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).message).toContain(path);
  expect((caught as ConfigError).message).toMatch(message);
}

describe('exchange.streams and exchange.websocket', () => {
  test('defaults: every stream, the documented host, the documented timings', () => {
    const c = parseConfig(minimal(), {});
    expect(c.exchange.streams).toBe('all');
    expect(c.exchange.websocket).toEqual({
      url: 'wss://api.whitebit.com/ws', pingIntervalMs: 50_000, pongTimeoutMs: 10_000, staleAfterMs: 15_000,
      backoffMinMs: 1000, backoffMaxMs: 30_000, klineCacheMs: 1000, reconcileEvery: 4,
    });
  });

  test('accepted values', () => {
    for (const streams of ['off', 'market', 'account', 'all']) expect(parseConfig(minimal({ streams }), {}).exchange.streams).toBe(streams);
    expect(parseConfig(minimal({ websocket: { url: 'wss://wss.whitebit.com/ws' } }), {}).exchange.websocket.url).toBe('wss://wss.whitebit.com/ws');
    expect(parseConfig(minimal({ websocket: { url: 'ws://127.0.0.1:8080/ws' } }), {}).exchange.websocket.url).toBe('ws://127.0.0.1:8080/ws');
  });

  test('refused, naming the key', () => {
    refused({ streams: 'some' }, 'exchange.streams', /off|market|account|all/);
    refused({ websocket: { url: 'ws://example.com/ws' } }, 'exchange.websocket.url', /only on loopback/);
    refused({ websocket: { url: 'https://api.whitebit.com/ws' } }, 'exchange.websocket.url', /wss:/);
    refused({ websocket: { url: 'nope' } }, 'exchange.websocket.url', /not a URL/);
    refused({ websocket: { pingIntervalMs: 70_000 } }, 'exchange.websocket.pingIntervalMs', /55000|55,000|too big|<=/i);
    refused({ websocket: { pongTimeoutMs: 50_000, pingIntervalMs: 20_000 } }, 'exchange.websocket.pongTimeoutMs', /below pingIntervalMs/);
    refused({ websocket: { backoffMinMs: 5000, backoffMaxMs: 1000 } }, 'exchange.websocket.backoffMinMs', /must not exceed/);
    refused({ websocket: { staleAfter: 1 } }, 'exchange.websocket.staleAfter', /unknown setting/);
  });
});

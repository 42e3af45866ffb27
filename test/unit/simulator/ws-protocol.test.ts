import { answerFrame, errorFrame, parseFrame, pushFrame, WS_ERRORS } from '../../../src/simulator/ws/ws-protocol';
import { WsTokens } from '../../../src/simulator/ws/ws-tokens';

describe('WebSocket JSON-RPC framing (websocket/overview.mdx)', () => {
  test('a request is {id: integer, method: string, params: array}', () => {
    expect(parseFrame('{"id":0,"method":"ping","params":[]}')).toEqual({ kind: 'request', request: { id: 0, method: 'ping', params: [] } });
  });

  test('not JSON is told apart from JSON that is not a request', () => {
    expect(parseFrame('{"id":0,')).toEqual({ kind: 'invalidJson' });
    expect(parseFrame('')).toEqual({ kind: 'invalidJson' });
    expect(parseFrame('{"id":3,"method":"ping"}')).toEqual({ kind: 'malformed', id: 3 });
    expect(parseFrame('{"id":"3","method":"ping","params":[]}')).toEqual({ kind: 'malformed', id: null });
    expect(parseFrame('{"id":1.5,"method":"ping","params":[]}')).toEqual({ kind: 'malformed', id: null });
    expect(parseFrame('{"id":4,"method":7,"params":[]}')).toEqual({ kind: 'malformed', id: 4 });
    expect(parseFrame('[]')).toEqual({ kind: 'malformed', id: null });
    expect(parseFrame('null')).toEqual({ kind: 'malformed', id: null });
  });

  test('answers, errors and pushes in the documented envelopes', () => {
    expect(JSON.parse(answerFrame(0, 'pong'))).toEqual({ id: 0, result: 'pong', error: null });
    expect(JSON.parse(errorFrame(1, WS_ERRORS.methodNotFound))).toEqual({ id: 1, result: null, error: { code: 4, message: 'method not found' } });
    expect(JSON.parse(pushFrame('lastprice_update', ['BTC_USDT', '1']))).toEqual({ id: null, method: 'lastprice_update', params: ['BTC_USDT', '1'] });
  });

  test('the documented error codes', () => {
    expect(Object.values(WS_ERRORS).map((e) => [e.code, e.message])).toEqual([
      [1, 'invalid argument'], [2, 'internal error'], [3, 'service unavailable'], [4, 'method not found'],
      [5, 'service timeout'], [6, 'require authentication'], [7, 'too many requests'],
    ]);
  });
});

describe('WebSocket tokens', () => {
  test('valid for their lifetime on any number of lookups, then refused; each issue is a new token', () => {
    const tokens = new WsTokens(1000);
    const a = tokens.issue('key-a', 10_000);
    const b = tokens.issue('key-a', 10_000);
    expect(a).not.toBe(b);
    expect(tokens.apiKeyOf(a, 10_500)).toBe('key-a');
    expect(tokens.apiKeyOf(a, 10_999)).toBe('key-a');
    expect(tokens.apiKeyOf(a, 11_000)).toBeUndefined();
    expect(tokens.apiKeyOf('sim-ws-never-issued', 10_000)).toBeUndefined();
  });
});

import { infoField, reconnectDelayMs, storeError } from '../../../src/store/redis';
import { StaleStateError, StoreUnavailableError } from '../../../src/domain/errors';

describe('Redis factory helpers', () => {
  test('reconnect backoff doubles from 50 ms, is capped, and adds at most 20% jitter', () => {
    const none = (): number => 0;
    expect([1, 2, 3, 4, 10, 100].map((n) => reconnectDelayMs(n, 2000, none))).toEqual([50, 100, 200, 400, 2000, 2000]);
    expect(reconnectDelayMs(100, 2000, () => 0.999)).toBeLessThanOrEqual(2400);
  });

  test('transport errors become StoreUnavailableError with the cause; our own errors pass through', () => {
    const cause = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    const wrapped = storeError(cause, 'recordOrder');
    expect(wrapped).toBeInstanceOf(StoreUnavailableError);
    expect(wrapped.cause).toBe(cause);
    expect(wrapped.message).toContain('recordOrder');
    const own = new StaleStateError('x');
    expect(storeError(own, 'op')).toBe(own);
  });

  test('INFO fields: by exact name, CRLF trimmed, absent is undefined', () => {
    const info = '# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1,port=7001\r\n# Server\r\nrun_id:abc123\r\n';
    expect([infoField(info, 'connected_slaves'), infoField(info, 'run_id'), infoField(info, 'slave'), infoField(info, 'nope')]).toEqual(['2', 'abc123', undefined, undefined]);
  });
});

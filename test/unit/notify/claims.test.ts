import { StoreKeys } from '../../../src/store/keys';
import { MemorySendClaims } from '../../../src/notify/send-claims';

describe('notification claims', () => {
  const keys = new StoreKeys('abc123', 'tb');

  test('the key names the account (hash tag), the channel and the event; long ids are hashed', () => {
    expect(keys.notificationSent('ops', 'fill:tb-x-1:0.5')).toBe('tb:{abc123}:notify-sent:ops|fill%3Atb-x-1%3A0.5');
    expect(keys.notificationSent('ops', 'a')).not.toBe(keys.notificationSent('ops2', 'a'));
    expect(keys.notificationSent('a|b', 'c')).not.toBe(keys.notificationSent('a', 'b|c'));
    const long = keys.notificationSent('ops', 'x'.repeat(500));
    expect(long).toMatch(/\|sha256-[0-9a-f]{64}$/);
    expect(long).not.toBe(keys.notificationSent('ops', `${'x'.repeat(499)}y`));
  });

  test('in process (no Redis): one claim per channel and event, the oldest forgotten past the bound', async () => {
    const claims = new MemorySendClaims(2);
    expect(await claims.claim('a', '1')).toBe('claimed');
    expect(await claims.claim('a', '1')).toBe('taken');
    expect(await claims.claim('b', '1')).toBe('claimed');
    expect(await claims.claim('a', '2')).toBe('claimed');
    expect(await claims.claim('a', '1')).toBe('claimed');
  });
});

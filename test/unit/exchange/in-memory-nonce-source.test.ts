import { ManualClock } from '../../../src/core/clock';
import { ConfigError, NotReadyError } from '../../../src/domain/errors';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';

describe('InMemoryNonceSource (same rule as reserve-nonce.lua)', () => {
  test('max(now + offset, last + 1), throttled at maxLeadMs, per API key', async () => {
    const clock = new ManualClock(1_000_000);
    const source = new InMemoryNonceSource({ clock, maxLeadMs: 3, sleep: async (ms) => clock.advanceMs(ms) });
    const got = await Promise.all([1, 2, 3, 4, 5].map(() => source.nextNonce('k')));
    expect(got).toEqual([1_000_000, 1_000_001, 1_000_002, 1_000_003, 1_000_004]);
    expect(source.throttled).toBe(1);
    expect(await source.nextNonce('other')).toBe(clock.nowMs());
    source.setClockOffsetMs(100);
    expect(await source.nextNonce('k')).toBe(clock.nowMs() + 100);
    expect(() => source.setClockOffsetMs(Number.NaN)).toThrow(ConfigError);
  });

  test('gives up with NotReadyError when the clock does not catch up within maxWaitMs', async () => {
    const clock = new ManualClock(5_000);
    const source = new InMemoryNonceSource({ clock, maxLeadMs: 0, maxWaitMs: 10, sleep: async () => undefined });
    await source.nextNonce('k');
    await expect(source.nextNonce('k')).rejects.toBeInstanceOf(NotReadyError);
    expect(() => new InMemoryNonceSource({ maxLeadMs: 5000 })).toThrow(ConfigError);
  });
});

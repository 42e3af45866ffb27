import { Faults } from '../../../src/simulator/server/faults';
import { NonceGuard } from '../../../src/simulator/server/nonce-guard';

test('faults are off by default, seeded when on, and queued faults come first', () => {
  const off = new Faults(1);
  expect(Array.from({ length: 100 }, () => off.decide('ping').kind).filter(Boolean)).toEqual([]);
  const a = new Faults(42);
  const b = new Faults(42);
  a.configure({ error5xxRate: 0.2, lostAnswerRate: 0.2, latencyMs: 5, jitterMs: 10 });
  b.configure({ error5xxRate: 0.2, lostAnswerRate: 0.2, latencyMs: 5, jitterMs: 10 });
  const runA = Array.from({ length: 200 }, () => a.decide('stopLimit'));
  const runB = Array.from({ length: 200 }, () => b.decide('stopLimit'));
  expect(runA).toEqual(runB);
  const share = runA.filter((d) => d.kind === 'error5xx').length / 200;
  expect(share).toBeGreaterThan(0.1);
  expect(share).toBeLessThan(0.3);
  expect(runA.every((d) => d.delayMs >= 5 && d.delayMs < 15)).toBe(true);

  a.reset();
  a.enqueue('timeout', { endpoint: 'cancelOrder', count: 2 });
  expect(a.decide('ping').kind).toBeUndefined();
  expect([a.decide('cancelOrder').kind, a.decide('cancelOrder').kind, a.decide('cancelOrder').kind]).toEqual(['timeout', 'timeout', undefined]);
  a.configure({ rateLimitRate: 1, endpoints: ['kline'] });
  expect([a.decide('kline').kind, a.decide('ping').kind]).toEqual(['rateLimit429', undefined]);
});

test('nonce guard: strict order without window; +-5 s and no reuse with window', () => {
  const guard = new NonceGuard();
  expect(guard.accept('k', 5, false, 1_000_000)).toBe('ok');
  expect(guard.accept('k', 5, false, 1_000_000)).toBe('reused');
  expect(guard.accept('k2', 1, false, 1_000_000)).toBe('ok'); // per key
  const now = 1_700_000_000_000;
  expect(guard.accept('w', now - 4999, true, now)).toBe('ok');
  expect(guard.accept('w', now - 4999, true, now)).toBe('reused');
  expect(guard.accept('w', now - 6000, true, now)).toBe('outside_window');
  expect(guard.accept('w', now + 5001, true, now)).toBe('outside_window');
  expect(guard.accept('w', now - 10, true, now)).toBe('ok'); // out of order is fine in window mode
});

import * as path from 'node:path';
import { canonicalJson } from '../../../src/core/canonical-json';
import { describeStrategies } from '../../../src/strategy/guest/describe-strategies';
import { findStrategy } from '../../../src/strategy/strategy-loader';
import { strategyVersion } from '../../../src/strategy/strategy-version';
import { defaultIsolation } from '../../../src/strategy/guest/sandbox';

// Modules are loaded and validated in throwaway guests (real child processes / worker threads): a
// module whose top-level code hunts the secret and calls process.exit ends only its own guest, and
// nothing of it runs here.
const SECRET = 'describe-test-secret-5d21';

describe.each([defaultIsolation(), 'permission', 'thread'] as const)('describeStrategies (%s guests)', (isolation) => {
  test('top-level code runs in the guest only: the others load, the exiting module is reported', async () => {
    process.env['TRADEBOT_API_SECRET'] = SECRET;
    try {
      const described = await describeStrategies('test/fixtures/guests-toplevel', { steady: { params: {} } }, { isolation, timeoutMs: 60_000 });
      expect(described.strategies.map((s) => [s.name, s.markets, s.interval, s.warmup])).toEqual([['steady', ['BTC_USDT'], '1m', 0]]);
      expect(described.errors.map((e) => [String(e.context['file']).split('/').pop(), e.context['reason']])).toEqual([['grabber.ts', 'load']]);
      expect(described.errors[0]?.message).toMatch(/guest ended while loading it \((process|thread) exited \(code 0\)\)/);
      expect(JSON.stringify(described)).not.toContain(SECRET);
      expect((globalThis as Record<string, unknown>)['grabbedSecret']).toBeUndefined();
    } finally {
      delete process.env['TRADEBOT_API_SECRET'];
    }
  }, 120_000);

  test('the version hashes the files the module loaded, read by the daemon: the backtest report\'s version', async () => {
    const dir = 'test/fixtures/guests-toplevel';
    const described = await describeStrategies(dir, { steady: { params: {} } }, { isolation, timeoutMs: 60_000 });
    const found = findStrategy(path.resolve(dir), 'steady');
    expect(described.strategies[0]?.identity).toEqual({ version: strategyVersion(found.sources), params: canonicalJson(found.strategy.params) });
    expect(described.strategies[0]?.identity.version).toMatch(/^[0-9a-f]{12}$/);
  }, 120_000);

  test('config checks across files: an unknown name and invalid params are reported', async () => {
    const described = await describeStrategies('test/fixtures/guests-toplevel', { steady: { params: { nope: 1 } }, ghost: {} }, { isolation, timeoutMs: 60_000 });
    expect(described.strategies).toEqual([]);
    const reasons = described.errors.map((e) => `${String(e.context['file']).split('/').pop()} ${e.context['reason']} ${e.context['strategy'] ?? ''}`).sort();
    expect(reasons).toEqual(['grabber.ts load ', 'guests-toplevel unknown ghost', 'steady.ts invalid steady']);
  }, 120_000);
});

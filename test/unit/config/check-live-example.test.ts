import { checkConfig } from '../../../src/cli/check-config-command';
import { resolveIsolation } from '../../../src/strategy/guest/sandbox';

/** The shipped live example passes `tradebot check-config` with credentials from the environment (issue #29, finding 7). */
jest.setTimeout(60_000);

test('config/live.example.yaml passes check-config (limits, kill-switch, strategies) with env credentials', async () => {
  const env = { TRADEBOT_API_KEY: 'example-key', TRADEBOT_API_SECRET: 'example-secret', TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };
  // The venue's market list as whitebit.com answers it (a unit test does not call the real venue; the
  // HTTP path is covered against the simulator by test/integration/app/venue-markets.test.ts).
  const venue = { kind: 'listed' as const, source: 'the venue at https://whitebit.com', markets: [{ name: 'BTC_USDT', tradesEnabled: true }, { name: 'ETH_USDT', tradesEnabled: true }] };
  const result = await checkConfig('config/live.example.yaml', env, process.cwd(), async () => venue);
  expect(result.text).toContain('OK config/live.example.yaml');
  expect(result.ok).toBe(true);
  expect(result.text).toContain('kill-switch: on');
  expect(result.text).toContain('  markets: BTC_USDT offered by the venue at https://whitebit.com\n');
  // The strongest level this host gives (auto); live's default minimum is permission-net.
  expect(result.text).toContain(`  strategy guests: ${String(resolveIsolation('auto'))} (minimum permission-net)\n`);
  expect(result.text).not.toContain('example-secret');
});

import { checkConfig } from '../../../src/cli/check-config-command';
import { resolveIsolation } from '../../../src/strategy/guest/sandbox';

/** The shipped live example passes `tradebot check-config` with credentials from the environment (issue #29, finding 7). */
jest.setTimeout(60_000);

test('config/live.example.yaml passes check-config (limits, kill-switch, strategies) with env credentials', async () => {
  const env = { TRADEBOT_API_KEY: 'example-key', TRADEBOT_API_SECRET: 'example-secret', TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };
  const result = await checkConfig('config/live.example.yaml', env, process.cwd());
  expect(result.text).toContain('OK config/live.example.yaml');
  expect(result.ok).toBe(true);
  expect(result.text).toContain('kill-switch: on');
  // The strongest level this host gives (auto); live's default minimum is permission-net.
  expect(result.text).toContain(`  strategy guests: ${String(resolveIsolation('auto'))} (minimum permission-net)\n`);
  expect(result.text).not.toContain('example-secret');
});

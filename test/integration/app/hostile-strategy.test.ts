import { existsSync } from 'node:fs';
import { requireBuild } from './daemon-process';
import { cleanupHostile, expectGuestSawRefusals, runHostile } from './hostile-run';

/**
 * The attacker's test of the strategy boundary (docs/security.md), under the Node running the tests:
 * hostile-run.ts starts a real paper daemon with the periodic drift check on and test/fixtures/hostile/
 * hostile.ts in its guests, and checks from outside that no secret, file, socket, process, thread,
 * signal or flood got through and that the operator's halt holds. Here: what the guest itself saw.
 * The same run under the Docker image's Node: hostile-strategy-docker-node.test.ts.
 */
jest.setTimeout(180_000);

beforeAll(() => requireBuild());
afterEach(cleanupHostile);

test('a hostile strategy reaches nothing outside its guest: no secret, file, socket, process, thread, signal or flood', async () => {
  const { isolation, probe } = await runHostile();
  expectGuestSawRefusals(isolation, probe);
  // This machine (Linux, user namespaces on): the strongest level. CI runs on the same kind of machine.
  if (process.platform === 'linux' && existsSync('/usr/bin/unshare')) expect(isolation).toBe('namespaces');
});

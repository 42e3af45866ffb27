import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { GuestIsolationLevel } from '../../../src/domain/guest-isolation';
import { defaultIsolation } from '../../../src/strategy/guest/sandbox';
import { requireBuild, ROOT } from '../app/daemon-process';

/**
 * A guest process ignores the stop signals a tree kill or a control group sends every process
 * (src/strategy/guest/guest-life.ts), yet the daemon still decides its life: it ends when the daemon's
 * IPC channel closes and when the daemon dies. The "daemon" here is a small Node process that starts
 * two guests the way the daemon does (forkGuest, the built code) and obeys lines on its stdin.
 */
jest.setTimeout(30_000);
beforeAll(requireBuild);

const DIST = path.join(ROOT, 'dist', 'src', 'strategy', 'guest');
const PARENT = `
const [, channel, entry, level, dir] = process.argv;
const { forkGuest } = require(channel);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const guests = [0, 1].map((i) => {
  const g = forkGuest(entry, level, [dir], 64);
  g.on('message', (m) => say({ guest: i, answer: m.type }));
  return g;
});
const ask = (g) => g.send({ type: 'describe', dir, config: {} });
guests.forEach(ask);
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, i] = line.split(' ');
  if (command === 'ask') ask(guests[Number(i)]);
  if (command === 'disconnect') guests[Number(i)].disconnect();
});
`;

/** Every process below `pid` (at `namespaces` the guest is unshare's child, the parent's grandchild). */
function below(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  const direct = readFileSync(file, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
  return [...direct, ...direct.flatMap((p) => below(p))];
}

const alive = (pids: readonly number[]): number[] => pids.filter((p) => existsSync(`/proc/${p}`) && !readFileSync(`/proc/${p}/stat`, 'utf8').includes(') Z '));

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const linuxOnly = process.platform === 'linux' ? describe : describe.skip;
linuxOnly.each([...new Set<GuestIsolationLevel>([defaultIsolation(), 'permission'])])('a guest process at %s', (level) => {
  let dir: string;
  let parent: ChildProcessWithoutNullStreams | undefined;
  const answers: { guest: number; answer: string }[] = [];
  beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tradebot-guest-life-')); });
  afterEach(() => {
    if (parent?.exitCode === null && parent.signalCode === null) parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('ignores SIGINT, SIGTERM and SIGHUP sent to each of its processes; still ends when the IPC channel closes and when its parent dies', async () => {
    parent = spawn(process.execPath, ['-e', PARENT, path.join(DIST, 'guest-channel.js'), path.join(DIST, 'guest-worker.js'), level, dir], { stdio: 'pipe' });
    createInterface({ input: parent.stdout }).on('line', (l) => answers.push(JSON.parse(l) as { guest: number; answer: string }));
    const answered = (guest: number): number => answers.filter((a) => a.guest === guest && a.answer === 'described').length;
    await until(() => answered(0) === 1 && answered(1) === 1, 15_000, 'both guests answer');
    const pid = parent.pid as number;
    const [first, second] = ((): [number[], number[]] => {
      const direct = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
      return [[direct[0] as number, ...below(direct[0] as number)], [direct[1] as number, ...below(direct[1] as number)]];
    })();
    // At namespaces: sh exec'ed setpriv exec'ed unshare (one process), and the guest below it.
    expect(first.length).toBe(level === 'namespaces' ? 2 : 1);

    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) for (const p of [...first, ...second]) process.kill(p, signal);
    await new Promise((r) => setTimeout(r, 500));
    expect(alive([...first, ...second])).toEqual([...first, ...second]);
    parent.stdin.write('ask 0\nask 1\n');
    await until(() => answered(0) === 2 && answered(1) === 2, 5000, 'both guests answer after the signals');

    parent.stdin.write('disconnect 0\n'); // the daemon's side of the channel closes: its guest ends
    await until(() => alive(first).length === 0, 5000, `the disconnected guest (${first.join(' ')}) ends`);
    expect(alive(second)).toEqual(second);

    parent.kill('SIGKILL'); // the daemon dies: its other guest ends too
    await until(() => alive(second).length === 0, 5000, `the orphaned guest (${second.join(' ')}) ends`);
  });
});

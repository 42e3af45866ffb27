import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { isDeadLocalOwner } from '../../../src/execution/guards/dead-owner';
import { renewalPeriodMs } from '../../../src/app/jobs-wiring';

/** A pid that existed and is gone: a child that already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

test('an owner on this host whose process is gone is dead', () => {
  expect(isDeadLocalOwner(`${hostname()}:${deadPid()}:abcd1234`)).toBe(true);
});

test('a live process, this process, another host or an unparsable id count as possibly alive', () => {
  expect(isDeadLocalOwner(`${hostname()}:${process.ppid}:abcd1234`)).toBe(false); // alive
  expect(isDeadLocalOwner(`${hostname()}:${process.pid}:abcd1234`)).toBe(false); // ourselves
  expect(isDeadLocalOwner(`elsewhere:${deadPid()}:abcd1234`)).toBe(false);
  expect(isDeadLocalOwner('replica-a')).toBe(false);
  expect(isDeadLocalOwner(`${hostname()}:not-a-pid:abcd1234`)).toBe(false);
});

test('lease renewal: about a third of the TTL, whole seconds dividing a minute', () => {
  expect(renewalPeriodMs(10_000)).toBe(3000);
  expect(renewalPeriodMs(3000)).toBe(1000);
  expect(renewalPeriodMs(21_000)).toBe(6000);
  expect(renewalPeriodMs(300_000)).toBe(60_000);
});

import { hostname } from 'node:os';

/**
 * Lease owner ids are `${hostname}:${pid}:${random}` (execution-wiring.ts). An owner on THIS host
 * whose process no longer exists is dead for sure (a crashed daemon restarted by pm2 or systemd):
 * its leases can be taken over at once instead of after their TTL. Anything else (another host, a
 * live pid, a pid the signal may not reach, an unparsable id) counts as possibly alive: wait for
 * the TTL. A pid reused by an unrelated process only makes us wait, never take over wrongly.
 */
export function isDeadLocalOwner(owner: string, host: string = hostname(), self: number = process.pid): boolean {
  const parts = owner.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const ownerHost = parts.slice(0, -2).join(':');
  if (ownerHost !== host || !Number.isInteger(pid) || pid <= 0 || pid === self) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

import { execFileSync } from 'node:child_process';
import { DaemonProcess, paperConfig, requireBuild, writeConfig } from './daemon-process';

/** The daemon and every process below it, as pm2's tree kill and systemd's control group reach them (guests have their own sessions). */
function processTree(pid: number): number[] {
  const children = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [child, parent] of children) if (parent === out[i]) out.push(child as number);
  return out;
}

// Issue #32: pm2's tree kill, systemd and a terminal's Ctrl-C signal the whole process group: that is a stop, not a failure.
beforeAll(requireBuild);
jest.setTimeout(60_000);

// How a stop reaches the processes: a terminal's Ctrl-C or `kill -- -PGID` signals the daemon's group (each
// process guest has a session of its own); pm2 (SIGINT, treekill) and systemd (KillMode=control-group,
// with SendSIGHUP=yes a SIGHUP right after the SIGTERM) signal every process of the tree.
for (const [signal, isolation, reach] of [
  ['SIGTERM', 'process', 'group'], ['SIGINT', 'thread', 'group'], ['SIGINT', 'permission', 'pm2 tree'], ['SIGTERM', 'process', 'systemd tree'],
] as const) {
  const signals = reach === 'systemd tree' ? [signal, 'SIGHUP'] as const : [signal];
  test(`${signals.join(' + ')} to the whole process ${reach} (guests: ${isolation}): exit 0, no error line, no pause, no restart`, async () => {
    const cfg = writeConfig(paperConfig({ strategies: { ...(paperConfig()['strategies'] as object), guestIsolation: isolation } }));
    const daemon = new DaemonProcess(['run', '--config', cfg.file], {}, { ownGroup: true });
    try {
      const started = await daemon.waitForLine((l) => l.msg === 'tradebot started', 30_000);
      if (reach === 'group') daemon.signalGroup(signal);
      else {
        // Guests first, the daemon a moment later: the order a control group's kill does not promise.
        const [root, ...below] = processTree(daemon.pid);
        for (const sig of signals) for (const pid of below) process.kill(pid, sig);
        await new Promise((r) => setTimeout(r, 300));
        for (const sig of signals) process.kill(root as number, sig);
      }
      const { code } = await daemon.exit();
      const loud = daemon.lines.slice(daemon.lines.indexOf(started)).filter((l) => l.level === 'error' || l.level === 'fatal' || /paused|restarting|thread ended/.test(l.msg));
      expect([code, loud]).toEqual([0, []]);
      expect(daemon.count((l) => l.msg === 'stopped cleanly')).toBe(1);
    } finally {
      await daemon.kill();
      cfg.cleanup();
    }
  });
}

/**
 * The stop signals a guest process ignores. pm2's tree kill, systemd's control group (SIGTERM, then
 * SIGHUP with SendSIGHUP=yes) and a terminal send them to every process of the daemon, its guests
 * included: the daemon stops its guests itself, and one that died of the signal first would be counted
 * as a crash (and restarted) on a normal stop.
 */
export const GUEST_IGNORED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Called first thing in a guest process: the daemon decides its life. It ends when the daemon's IPC
 * channel closes (the daemon stopped or died; `setpriv --pdeathsig KILL` covers a guest too busy to
 * notice, sandbox.ts) or when the daemon kills it (SIGKILL), never of a stop signal meant for the daemon.
 */
export function tieLifeToDaemon(): void {
  process.on('disconnect', () => process.exit(0));
  for (const stop of GUEST_IGNORED_SIGNALS) process.on(stop, () => undefined);
}

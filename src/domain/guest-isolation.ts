/**
 * How strongly a guest (strategy code) is walled off from the daemon, weakest first:
 * - `thread`: a worker thread of the daemon: empty `process.env`, heap limit; it shares the daemon's
 *   process (files, sockets, signals).
 * - `permission`: its own process under Node's permission model: no file beyond its allow-list, no
 *   child processes, no threads, no addons. Node < 25 does not cover the network (sockets stay open),
 *   and signals to any process of the same uid still go through.
 * - `permission-net`: the same on a Node whose permission model also refuses the network (>= 25).
 * - `namespaces`: the permission model inside its own Linux user, PID, network and IPC namespaces:
 *   no process outside is visible to signal, no network interface is up, nothing outside its
 *   allow-list to read.
 */
export const GUEST_ISOLATION_LEVELS = ['thread', 'permission', 'permission-net', 'namespaces'] as const;
export type GuestIsolationLevel = (typeof GUEST_ISOLATION_LEVELS)[number];

/** What `strategies.guestIsolation` asks for: a level, or `auto` (the strongest this host allows; `process` is its older name). */
export const GUEST_ISOLATION_CHOICES = ['auto', 'process', 'namespaces', 'permission', 'thread'] as const;
export type GuestIsolationChoice = (typeof GUEST_ISOLATION_CHOICES)[number];

export function isolationAtLeast(level: GuestIsolationLevel, minimum: GuestIsolationLevel): boolean {
  return GUEST_ISOLATION_LEVELS.indexOf(level) >= GUEST_ISOLATION_LEVELS.indexOf(minimum);
}

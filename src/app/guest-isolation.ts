import type { FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import { isolationAtLeast, type GuestIsolationLevel } from '../domain/guest-isolation';
import { namespacesProblem, resolveIsolation } from '../strategy/guest/sandbox';

/** The weakest isolation a mode starts with when the config names none: live money wants no sockets. */
const DEFAULT_MINIMUM: Readonly<Record<FrozenConfig['mode'], GuestIsolationLevel>> = { live: 'permission-net', paper: 'thread' };

const resolved = new WeakMap<FrozenConfig, GuestIsolationLevel>();

/** The weakest isolation this config starts with: strategies.minGuestIsolation, else the mode's default. */
export function guestIsolationMinimum(config: FrozenConfig): GuestIsolationLevel {
  return config.strategies.minGuestIsolation ?? DEFAULT_MINIMUM[config.mode];
}

/**
 * The isolation every guest of this config gets on this host (strategies.guestIsolation), checked
 * against strategies.minGuestIsolation (default by mode). Throws ConfigError (exit 78) naming the key,
 * the level this host gives and why it gives no more. One answer per config: the namespaces probe runs once.
 */
export function guestIsolationOf(config: FrozenConfig): GuestIsolationLevel {
  const known = resolved.get(config);
  if (known !== undefined) return known;
  const choice = config.strategies.guestIsolation;
  const level = resolveIsolation(choice === 'process' ? 'auto' : choice);
  if (typeof level !== 'string') throw new ConfigError(`strategies.guestIsolation: ${level.problem}`, { path: 'strategies.guestIsolation' });
  const minimum = guestIsolationMinimum(config);
  if (!isolationAtLeast(level, minimum)) {
    const ns = namespacesProblem();
    throw new ConfigError(
      `strategies.minGuestIsolation: strategy guests would run at "${level}" here, below the required "${minimum}"`
      + (level === 'thread'
        ? ` (strategies.guestIsolation is "${choice}": worker threads share the daemon's process)`
        : `${ns === undefined ? '' : `; namespaces: ${ns}`}; Node ${process.versions.node}'s permission model ${level === 'permission-net' ? 'covers' : 'does not cover'} the network`)
      + ' (docs/security.md)',
      { path: 'strategies.minGuestIsolation' },
    );
  }
  resolved.set(config, level);
  return level;
}

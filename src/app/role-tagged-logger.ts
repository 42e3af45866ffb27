import type { Logger } from '../log/logger';
import type { StrategyLogger } from '../strategy/strategy';
import type { VersionRole } from '../strategy/versions/versioned-host';

/**
 * A version's strategy logger whose children (one per guest log line, guest-host.ts guestLog) carry
 * `role: 'shadow'` while that version is a shadow, so its ctx.log lines are not read as the live ones.
 * The role is read per line, not bound once: a promoted shadow's later lines are live lines.
 */
export function roleTaggedLogger(log: Logger, role: () => VersionRole): StrategyLogger & { child(bindings: Record<string, unknown>): StrategyLogger } {
  return {
    debug: (obj, msg) => log.debug(obj, msg),
    info: (obj, msg) => log.info(obj, msg),
    warn: (obj, msg) => log.warn(obj, msg),
    error: (obj, msg) => log.error(obj, msg),
    child: (bindings) => log.child(role() === 'shadow' ? { ...bindings, role: 'shadow' } : bindings),
  };
}

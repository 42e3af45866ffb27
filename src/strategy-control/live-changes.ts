import type { FrozenConfig } from '../config/load';

/** A config change a running daemon cannot take: the key named, never its value (it may be a secret). */
export interface RefusedChange {
  readonly key: string;
  readonly reason: string;
}

/** What a reload may change on a running daemon: each strategy's markets and params, and the auto-promotion count. */
const LIVE_KEYS = new Set(['strategies.enabled', 'strategies.shadowCandles']);

/**
 * Compares the running config with the one just re-read. Anything but the strategies' markets and
 * params (and strategies.shadowCandles) is wired at start-up (Redis URL, exchange URL, mode, risk,
 * polling, the strategy list and intervals): such a change is refused, naming the first key, and
 * nothing of the reload applies. Undefined when the new config can apply live.
 */
export function refusedChange(running: FrozenConfig, next: FrozenConfig): RefusedChange | undefined {
  const key = firstDifference(running, next, '');
  if (key !== undefined) return { key, reason: `${key} cannot change on a running daemon (wired at start-up): restart it to apply` };
  const before = running.strategies.enabled;
  const after = next.strategies.enabled;
  const names = (list: typeof before): string[] => list.map((e) => e.name);
  const added = names(after).filter((n) => !names(before).includes(n));
  const removed = names(before).filter((n) => !names(after).includes(n));
  if (added.length > 0 || removed.length > 0) {
    const what = [...added.map((n) => `${n} added`), ...removed.map((n) => `${n} removed`)].join(', ');
    return { key: 'strategies.enabled', reason: `strategies.enabled: the list of strategies cannot change on a running daemon (${what}): restart it to apply` };
  }
  for (let i = 0; i < after.length; i++) {
    const e = after[i]!;
    const old = before.find((b) => b.name === e.name)!;
    if (e.interval !== old.interval) {
      return { key: `strategies.enabled[${i}].interval`, reason: `strategies.enabled[${i}].interval (${e.name}) cannot change on a running daemon (its candles are polled per interval): restart it to apply` };
    }
  }
  return undefined;
}

function firstDifference(a: unknown, b: unknown, at: string): string | undefined {
  if (LIVE_KEYS.has(at)) return undefined;
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return at || '(root)';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return at;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  for (const k of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
    const d = firstDifference(ra[k], rb[k], at === '' ? k : `${at}.${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

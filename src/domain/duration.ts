/** Seconds per unit of a duration written as `90m`, `24h`, `7d`, `2w`. */
const UNIT_SECONDS: Readonly<Record<string, number>> = { m: 60, h: 3600, d: 86_400, w: 604_800 };

/** What a duration looks like, for error messages. */
export const DURATION_EXAMPLE = '"90m", "24h", "7d" or "2w"';

/**
 * A duration such as `90m`, `24h`, `7d`, `2w` in seconds (a positive whole number of seconds is taken
 * as is); undefined when the value is not one. Callers raise their own error naming the field.
 */
export function durationSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  const m = typeof value === 'string' ? /^(\d+)(m|h|d|w)$/.exec(value.trim()) : null;
  if (m === null || Number(m[1]) <= 0) return undefined;
  return Number(m[1]) * (UNIT_SECONDS[m[2] as string] as number);
}

/** 86400000 -> "24h", 172800000 -> "2d": how a window reads in a reason (as people write them in the config). */
export function durationText(ms: number): string {
  const s = ms / 1000;
  if (s >= 172_800 && s % 86_400 === 0) return `${s / 86_400}d`;
  if (s % 3600 === 0) return `${s / 3600}h`;
  return s % 60 === 0 ? `${s / 60}m` : `${s}s`;
}

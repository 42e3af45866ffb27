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

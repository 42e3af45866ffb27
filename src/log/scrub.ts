import { REDACTED } from '../config/secret';

/**
 * Keys whose value is secret wherever they appear, compared case-insensitively (node:http
 * lowercases incoming header names, ky keeps the case we set): API credentials, signatures, the
 * exchange's X-TXC-* auth headers, passwords and URLs that can embed one.
 */
export const SECRET_KEYS: readonly string[] = Object.freeze([
  'apisecret', 'api_secret', 'apikey', 'api_key', 'secret', 'signature', 'password', 'token',
  'authorization', 'cookie', 'redisurl', 'x-txc-signature', 'x-txc-payload', 'x-txc-apikey',
]);
const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);

// Deeper than any log object we write; also what stops a cycle.
const MAX_DEPTH = 8;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_SET.has(key) || SECRET_KEY_SET.has(key.toLowerCase());
}

function walkable(value: object): boolean {
  if (Array.isArray(value) || value instanceof Error) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  // Plain objects only: class instances (Decimal, Response, Headers) may have getters with side
  // effects, and a Secret already prints itself as redacted.
  return proto === Object.prototype || proto === null;
}

/** An Error becomes the plain shape pino's err serializer would have written, so it can be edited. */
function copyOf(value: object): Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return value.slice();
  if (value instanceof Error) {
    const shape: Record<string, unknown> = { type: value.name, message: value.message, stack: value.stack };
    return Object.assign(shape, value);
  }
  return { ...(value as Record<string, unknown>) };
}

/**
 * Returns `value` with every secret key's value replaced by `[REDACTED]`, at any depth. Objects
 * holding nothing secret are returned as they are (no copy), so the common line costs one walk.
 * pino's own `redact` paths match a fixed depth, and its `*.` wildcards cost hundreds of µs per
 * line (see bench/RESULTS.md), so nested levels are handled here instead.
 */
export function scrub<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || !walkable(value)) return value;
  let out: Record<string, unknown> | unknown[] | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const v = source[key];
    const next = v !== undefined && isSecretKey(key) ? REDACTED : scrub(v, depth + 1);
    if (next !== v) {
      out ??= copyOf(value);
      (out as Record<string, unknown>)[key] = next;
    }
  }
  if (value instanceof Error && value.cause !== undefined) {
    const cause = scrub(value.cause, depth + 1);
    if (cause !== value.cause) {
      out ??= copyOf(value);
      (out as Record<string, unknown>)['cause'] = cause;
    }
  }
  return (out ?? value) as T;
}

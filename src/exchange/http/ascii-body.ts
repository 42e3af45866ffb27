/**
 * The signing hot path: writes the signed body's bytes straight into one reused buffer when the body
 * is plain ASCII JSON, so the body string and its base64 payload each come out of a single copy
 * (no merged object, no JSON.stringify, no string concatenation to flatten). Request params are flat
 * and validated (markets, decimals, ids, enums), so this is the common case; anything else returns
 * -1 and sign.ts builds the body with JSON.stringify.
 *
 * Byte-identical to JSON.stringify({ request, nonce, nonceWindow?, ...params }) because it only
 * accepts: a plain object, own keys that do not override the envelope and are not integer-like
 * (JavaScript would order those first), and values that JSON writes verbatim (ASCII strings with
 * no character to escape, finite numbers, booleans, null; undefined members are left out, as JSON
 * does). Checked against JSON.stringify by test/unit/exchange/sign.test.ts.
 */

/** Reused by every call (synchronous, so never by two at once). Larger bodies take the string path. */
export const asciiBuffer = Buffer.allocUnsafe(8192);

/**
 * Appends `s` at `at` and returns the new end; -1 if it is not ASCII, would need escaping inside a
 * JSON string, or does not fit. Locals only: this loop is the hot one.
 */
function put(buf: Buffer, at: number, s: string): number {
  const n = s.length;
  if (at < 0 || at + n + 2 > buf.length) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c < 0x20 || c === 0x22 || c === 0x5c) return -1;
    buf[at + i] = c;
  }
  return at + n;
}

/** Appends a constant of this file (known plain ASCII): no character checks. */
function raw(buf: Buffer, at: number, s: string): number {
  const n = s.length;
  if (at < 0 || at + n + 2 > buf.length) return -1;
  for (let i = 0; i < n; i++) buf[at + i] = s.charCodeAt(i);
  return at + n;
}

/**
 * Writes `{"request":<path>,"nonce":"<nonce>"[,"nonceWindow":b],<params>}` into asciiBuffer and
 * returns its length, or -1 when the string path must be used instead.
 */
export function writeAsciiBody(
  path: string,
  nonce: number | string,
  params: Readonly<Record<string, unknown>>,
  nonceWindow: boolean | undefined,
): number {
  if (Object.getPrototypeOf(params) !== Object.prototype) return -1;
  const buf = asciiBuffer;
  let at = raw(buf, 0, '{"request":"');
  at = put(buf, at, path);
  at = raw(buf, at, '","nonce":"');
  at = put(buf, at, typeof nonce === 'number' ? String(nonce) : nonce);
  at = raw(buf, at, nonceWindow === undefined ? '"' : nonceWindow ? '","nonceWindow":true' : '","nonceWindow":false');
  for (const key in params) {
    if (at < 0 || !Object.hasOwn(params, key) || key === 'request' || key === 'nonce' || key === 'nonceWindow') return -1;
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) return -1;
    const v = params[key];
    if (v === undefined) continue;
    at = raw(buf, at, ',"');
    at = put(buf, at, key);
    if (typeof v === 'string') {
      at = raw(buf, at, '":"');
      at = put(buf, at, v);
      at = raw(buf, at, '"');
      continue;
    }
    at = raw(buf, at, '":');
    if (typeof v === 'number') at = Number.isFinite(v) ? raw(buf, at, String(v)) : -1; // JSON's digits (-0 -> "0" in both)
    else if (typeof v === 'boolean') at = raw(buf, at, v ? 'true' : 'false');
    else if (v === null) at = raw(buf, at, 'null');
    else return -1; // objects (toJSON, arrays), functions, symbols, bigint: JSON.stringify decides
  }
  return raw(buf, at, '}');
}

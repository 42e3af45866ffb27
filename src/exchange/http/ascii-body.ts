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
 * JSON string (`inString`), or does not fit. Locals only: this loop is the hot one.
 */
function put(buf: Buffer, at: number, s: string, inString: boolean): number {
  const n = s.length;
  if (at < 0 || at + n + 2 > buf.length) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || (inString && (c < 0x20 || c === 0x22 || c === 0x5c))) return -1;
    buf[at + i] = c;
  }
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
  let at = put(buf, 0, '{"request":"', false);
  at = put(buf, at, path, true);
  at = put(buf, at, '","nonce":"', false);
  at = put(buf, at, typeof nonce === 'number' ? String(nonce) : nonce, true);
  at = put(buf, at, nonceWindow === undefined ? '"' : nonceWindow ? '","nonceWindow":true' : '","nonceWindow":false', false);
  for (const key in params) {
    if (at < 0 || !Object.hasOwn(params, key) || key === 'request' || key === 'nonce' || key === 'nonceWindow') return -1;
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) return -1;
    const v = params[key];
    if (v === undefined) continue;
    at = put(buf, at, ',"', false);
    at = put(buf, at, key, true);
    at = put(buf, at, '":', false);
    if (typeof v === 'string') {
      at = put(buf, at, '"', false);
      at = put(buf, at, v, true);
      at = put(buf, at, '"', false);
    } else if (typeof v === 'number') at = Number.isFinite(v) ? put(buf, at, String(v), false) : -1; // JSON's digits (-0 -> "0" in both)
    else if (typeof v === 'boolean') at = put(buf, at, v ? 'true' : 'false', false);
    else if (v === null) at = put(buf, at, 'null', false);
    else return -1; // objects (toJSON, arrays), functions, symbols, bigint: JSON.stringify decides
  }
  return put(buf, at, '}', false);
}

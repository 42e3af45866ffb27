/**
 * An error on the terminal's one-line form (pino-pretty `singleLine`): `Type: message [code] {context}
 * at <first stack frame>`, instead of the whole serialized error and stack that pino-pretty prints on
 * 15 lines below the event. The JSON form keeps the full error and stack.
 */
export function compactError(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const e = value as Record<string, unknown>;
  const text = (k: string): string | undefined => (typeof e[k] === 'string' ? e[k] : undefined);
  const frame = /^\s*at (.+)$/m.exec(text('stack') ?? '')?.[1];
  const context = typeof e['context'] === 'object' && e['context'] !== null ? ` ${JSON.stringify(e['context'])}` : '';
  const code = text('code') === undefined ? '' : ` [${text('code')}]`;
  return `${text('type') ?? text('name') ?? 'Error'}: ${text('message') ?? ''}${code}${context}${frame === undefined ? '' : ` at ${frame}`}`;
}

/**
 * The `err`/`error` fields of a line in their one-line form (the terminal only), as `error`: pino-pretty
 * always prints an `err` field on lines of its own below the event, whatever its form.
 */
export function compactErrorFields(obj: Record<string, unknown>): Record<string, unknown> {
  if (obj['err'] === undefined && (typeof obj['error'] !== 'object' || obj['error'] === null)) return obj;
  const { err, ...rest } = obj;
  const out: Record<string, unknown> = { ...rest };
  if (typeof rest['error'] === 'object' && rest['error'] !== null) out['error'] = compactError(rest['error']);
  if (err !== undefined) out[out['error'] === undefined ? 'error' : 'error2'] = compactError(err);
  return out;
}

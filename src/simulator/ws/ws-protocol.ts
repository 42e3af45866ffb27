/**
 * The venue's WebSocket JSON-RPC framing (websocket/overview.mdx "Message format", rate-limits.mdx
 * "Error codes"): requests `{id, method, params}`, answers `{id, result, error}`, pushes
 * `{id: null, method, params}`. Errors carry the documented code and message.
 */
export const WS_ERRORS = {
  invalidArgument: { code: 1, message: 'invalid argument' },
  internalError: { code: 2, message: 'internal error' },
  serviceUnavailable: { code: 3, message: 'service unavailable' },
  methodNotFound: { code: 4, message: 'method not found' },
  serviceTimeout: { code: 5, message: 'service timeout' },
  requireAuthentication: { code: 6, message: 'require authentication' },
  tooManyRequests: { code: 7, message: 'too many requests' },
} as const;

export type WsError = (typeof WS_ERRORS)[keyof typeof WS_ERRORS];

/**
 * A handler's refusal: the server answers it as `error` with `result: null`. Control flow inside the
 * WebSocket server only (never thrown past it), hence not a TradebotError.
 */
export class WsRefusal extends Error {
  constructor(readonly error: WsError) {
    super(error.message);
  }
}

export const invalidArgument = (): WsRefusal => new WsRefusal(WS_ERRORS.invalidArgument);

export interface WsRequest {
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
}

export type ParsedFrame =
  | { readonly kind: 'request'; readonly request: WsRequest }
  /** Valid JSON that is not a request: answered with code 1 (id echoed when usable). */
  | { readonly kind: 'malformed'; readonly id: number | null }
  /** Not JSON: the venue closes the connection. */
  | { readonly kind: 'invalidJson' };

export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalidJson' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'malformed', id: null };
  const o = value as Record<string, unknown>;
  const id = Number.isSafeInteger(o['id']) ? (o['id'] as number) : null;
  if (id === null || typeof o['method'] !== 'string' || !Array.isArray(o['params'])) return { kind: 'malformed', id };
  return { kind: 'request', request: { id, method: o['method'], params: o['params'] as unknown[] } };
}

export function answerFrame(id: number | null, result: unknown): string {
  return JSON.stringify({ id, result, error: null });
}

export function errorFrame(id: number | null, error: WsError): string {
  return JSON.stringify({ id, result: null, error: { code: error.code, message: error.message } });
}

export function pushFrame(method: string, params: readonly unknown[]): string {
  return JSON.stringify({ id: null, method, params });
}

export const SUCCESS = { status: 'success' } as const;

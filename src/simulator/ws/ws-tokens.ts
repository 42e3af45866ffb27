import { randomBytes } from 'node:crypto';

/** Default lifetime of a WebSocket token: the docs say only "short-lived" (websocket/authentication.mdx). */
export const DEFAULT_WS_TOKEN_TTL_MS = 5 * 60_000;

/**
 * The tokens `POST /api/v4/profile/websocket_token` issues and `authorize` accepts: random, tied to
 * one API key, valid until they expire (on the wall clock). Usable on several connections within
 * their lifetime (guides/market-maker-guide.mdx); clients are told to fetch one per connection.
 * Tokens are credentials: never logged.
 */
export class WsTokens {
  private readonly tokens = new Map<string, { apiKey: string; expiresMs: number }>();

  constructor(private readonly ttlMs: number = DEFAULT_WS_TOKEN_TTL_MS) {}

  issue(apiKey: string, nowMs: number): string {
    this.sweep(nowMs);
    // The `sim-ws-` prefix tells a simulator token apart in a test; the rest is unguessable.
    const token = `sim-ws-${randomBytes(16).toString('hex')}`;
    this.tokens.set(token, { apiKey, expiresMs: nowMs + this.ttlMs });
    return token;
  }

  /** The API key of a valid token; undefined when unknown or expired. */
  apiKeyOf(token: string, nowMs: number): string | undefined {
    const entry = this.tokens.get(token);
    if (entry === undefined) return undefined;
    if (entry.expiresMs <= nowMs) {
      this.tokens.delete(token);
      return undefined;
    }
    return entry.apiKey;
  }

  private sweep(nowMs: number): void {
    for (const [token, entry] of this.tokens) if (entry.expiresMs <= nowMs) this.tokens.delete(token);
  }
}

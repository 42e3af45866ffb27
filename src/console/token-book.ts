import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readSecretFile } from '../config/credentials';
import type { ConsoleConfig } from '../config/console-schema';

export type ConsoleRole = 'viewer' | 'operator';

/** Who a request is: the token's configured name and role (never the token). */
export interface ConsoleIdentity {
  readonly name: string;
  readonly role: ConsoleRole;
}

interface Entry extends ConsoleIdentity {
  readonly digest: Buffer;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{16,512})$/;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The console's tokens, held as SHA-256 digests only: from the config's `sha256`, or read from the
 * `file` and hashed at start. A presented token is hashed and compared with EVERY digest in constant
 * time (timingSafeEqual on equal-length digests, no early exit), so the answer time says nothing of
 * how close a guess was or which token it nearly matched.
 */
export class TokenBook {
  private constructor(private readonly entries: readonly Entry[]) {}

  static fromConfig(c: { readonly tokens: readonly ConsoleConfig['tokens'][number][] }, extra: readonly { readonly name: string; readonly role: ConsoleRole; readonly token: string }[] = []): TokenBook {
    const entries: Entry[] = c.tokens.map((t) => ({
      name: t.name, role: t.role,
      digest: t.sha256 !== undefined ? Buffer.from(t.sha256, 'hex') : sha256(readSecretFile(t.file!, `console.tokens[${t.name}].file`)),
    }));
    for (const t of extra) entries.push({ name: t.name, role: t.role, digest: sha256(t.token) });
    return new TokenBook(entries);
  }

  get size(): number {
    return this.entries.length;
  }

  /** `undefined`: no Authorization header; `null`: one that matches no token. */
  identify(authorization: string | undefined): ConsoleIdentity | null | undefined {
    if (authorization === undefined || authorization === '') return undefined;
    const token = BEARER.exec(authorization)?.[1];
    const presented = sha256(token ?? authorization);
    let found: Entry | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(presented, e.digest) && token !== undefined) found = e;
    }
    return found === undefined ? null : { name: found.name, role: found.role };
  }
}

/** A fresh token (32 random bytes, base64url): the one-time token, and what `tradebot console-token` prints. */
export function mintToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the config's `sha256` holds for a token. */
export function tokenSha256(token: string): string {
  return sha256(token).toString('hex');
}

import { z } from 'zod';

/** A token's SHA-256 (64 hex digits): what the config holds instead of the token. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

const consoleToken = z
  .strictObject({
    /** Who holds it: the audit log and the failure log name the token by this, never by its value. */
    name: z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be 1-64 letters, digits or . _ @ -'),
    role: z.enum(['viewer', 'operator']),
    /** The token's SHA-256 in hex (`printf %s "$TOKEN" | sha256sum`). */
    sha256: z.string().regex(SHA256_HEX, 'must be the token\'s SHA-256 as 64 lowercase hex digits').optional(),
    /** A file holding the token itself (a Kubernetes Secret mounted as a file); read and hashed at start. */
    file: z.string().min(1).optional(),
  })
  .refine((t) => (t.sha256 === undefined) !== (t.file === undefined), { message: 'give exactly one of sha256 or file' });

/** The `console` section: the operator's API and web page (docs/console.md). */
export const consoleSection = z
  .strictObject({
    enabled: z.boolean().default(false),
    /** Loopback by default: the console controls trading. */
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 picks a free port (tests). */
    port: z.number().int().min(0).max(65_535).default(8080),
    tokens: z.array(consoleToken).max(64).default([]),
    /**
     * A TLS-terminating proxy (Ingress, nginx) stands in front: bearer tokens are accepted on a
     * non-loopback address only when this is declared, since plain HTTP would carry them in clear.
     */
    behindTlsProxy: z.boolean().default(false),
    /**
     * Paper mode on loopback with no token configured: mint an operator token for this process's
     * life and print the console's URL with it (what `npm start` shows). Never in live mode.
     */
    oneTimeToken: z.boolean().default(true),
    /** Failed authentications allowed per client address per minute before it is refused outright (429). */
    maxAuthFailuresPerMinute: z.number().int().min(1).max(1000).default(10),
  })
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    c.tokens.forEach((t, i) => {
      if (names.has(t.name)) ctx.addIssue({ code: 'custom', message: `token name ${t.name} is used twice`, path: ['tokens', i, 'name'] });
      names.add(t.name);
    });
  })
  .prefault({});

export type ConsoleConfig = z.infer<typeof consoleSection>;

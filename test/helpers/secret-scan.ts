import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Finds secrets in what the test suite logged. Used three ways: tests that start a daemon assert on
 * their own captured output (a clear failure at the test that leaked), the Jest globalTeardown scans
 * the whole per-run capture directory (every node child process of the run, see tee-output.js), and
 * test/unit/ops/secret-scan.test.ts proves the scanner finds planted secrets.
 */

/** Environment variable naming the per-run directory where child-process output is captured. */
export const LOG_DIR_ENV = 'TRADEBOT_TEST_LOG_DIR';

/** The secret the ops tests give the processes they start. Distinctive so a hit is never a coincidence. */
export const OPS_TEST_SECRET = 'ops-test-secret-5b1e7c0d9a-never-log';

/**
 * Every API secret the suite hands to a simulator, client, CLI or daemon (grep `apiSecret|SECRET`
 * in test/). Tests define their own constants; they are repeated here so the run-wide scan knows
 * them. Short or generic values ('x', 'wrong-secret', 'not-it') are left out: they would match
 * ordinary words, and a wrong secret is not a credential.
 */
export const TEST_SECRETS: readonly string[] = Object.freeze([
  OPS_TEST_SECRET,
  'crash-secret', // test/crash/crash-submitter.test.ts
  'ks-test-secret-0123456789', // test/integration/app/kill-switch.live.test.ts
  'raw-secret', // test/integration/simulator/sim-auth-raw.test.ts
  'integration-secret-do-not-print', // test/integration/exchange/http-client.test.ts
  'cli-secret-must-never-be-printed', // test/integration/exchange/api-command.test.ts
  'exec-secret', // test/integration/execution/harness.ts
  'test-secret-6f1d0c8e-never-print', // test/unit/config/credentials.test.ts
  'TOPSECRET-7f3a9c', // test/unit/log/logger.test.ts
  'queue-pw-7c1f0e9a-never-print', // test/integration/backtest/queue-sweep.test.ts (the queue Redis URL's password)
]);

export type FindingKind = 'test_secret' | 'signature' | 'hex_secret' | 'signed_payload';

export interface Finding {
  readonly kind: FindingKind;
  /** Where it was found: a file name, or the label the caller gave. */
  readonly source: string;
  readonly line: number;
  /** The line around the hit with the secret itself masked: a report must not leak it again. */
  readonly excerpt: string;
}

export interface ScanOptions {
  /** Exact strings to look for; default TEST_SECRETS. */
  readonly secrets?: readonly string[];
}

/*
 * Secrets whose value a test cannot know are found by their shape:
 * - X-TXC-SIGNATURE is hex(HMAC-SHA512): exactly 128 hex digits;
 * - the paper daemon's secret is 32 random bytes in hex (64 digits), and other generated keys are
 *   as long: any other run of 64+ hex digits is reported too (tradebot logs no hashes that long);
 * - X-TXC-PAYLOAD is base64 of the signed JSON body, which always holds "request" and "nonce".
 */
const HEX_RUN = /(?<![0-9a-fA-F])[0-9a-fA-F]{64,}(?![0-9a-fA-F])/g;
const BASE64_RUN = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40,}={0,2}/g;

function isSignedPayload(candidate: string): boolean {
  let decoded: string;
  try {
    decoded = Buffer.from(candidate, 'base64').toString('utf8');
  } catch {
    return false;
  }
  return decoded.includes('"request"') && decoded.includes('"nonce"');
}

interface Hit { readonly kind: FindingKind; readonly start: number; readonly length: number }

function hitsIn(line: string, secrets: readonly string[]): Hit[] {
  const hits: Hit[] = [];
  for (const secret of secrets) {
    for (let at = line.indexOf(secret); at >= 0; at = line.indexOf(secret, at + secret.length)) hits.push({ kind: 'test_secret', start: at, length: secret.length });
  }
  for (const m of line.matchAll(HEX_RUN)) hits.push({ kind: m[0].length === 128 ? 'signature' : 'hex_secret', start: m.index, length: m[0].length });
  for (const m of line.matchAll(BASE64_RUN)) if (isSignedPayload(m[0])) hits.push({ kind: 'signed_payload', start: m.index, length: m[0].length });
  return hits.sort((a, b) => a.start - b.start);
}

/** The line with EVERY hit replaced, and where each hit starts in it: a report must not leak a secret again. */
function masked(line: string, hits: readonly Hit[]): { text: string; at: number[] } {
  let text = '';
  let from = 0;
  const at: number[] = [];
  for (const h of hits) {
    const start = Math.max(h.start, from); // overlapping hits (a secret inside a hex run) hide once
    text += line.slice(from, start);
    at.push(text.length);
    if (h.start + h.length > from) {
      text += `<${h.start + h.length - start} chars hidden>`;
      from = h.start + h.length;
    }
  }
  return { text: text + line.slice(from), at };
}

/** Every secret (known or by shape) in `text`, one finding per hit. */
export function scanText(text: string, source: string, options: ScanOptions = {}): Finding[] {
  const secrets = (options.secrets ?? TEST_SECRETS).filter((s) => s.length > 0);
  const findings: Finding[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    const hits = hitsIn(line, secrets);
    if (hits.length === 0) continue;
    const { text: safe, at } = masked(line, hits);
    for (const [n, h] of hits.entries()) {
      const pos = at[n] ?? 0;
      const from = Math.max(0, pos - 60);
      const to = Math.min(safe.length, pos + 90);
      findings.push({ kind: h.kind, source, line: i + 1, excerpt: `${from > 0 ? '…' : ''}${safe.slice(from, to)}${to < safe.length ? '…' : ''}` });
    }
  }
  return findings;
}

/** Scans every file under `dir` (recursively). A missing directory holds nothing. */
export function scanDirectory(dir: string, options: ScanOptions = {}): Finding[] {
  if (!existsSync(dir)) return [];
  const findings: Finding[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) findings.push(...scanDirectory(file, options));
    else findings.push(...scanText(readFileSync(file, 'utf8'), file, options));
  }
  return findings;
}

/** A readable report of findings (secrets masked), for a failing test or the teardown. */
export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `  ${f.kind} in ${f.source}:${f.line}: ${f.excerpt}`).join('\n');
}

/**
 * Saves `text` (output a test collected itself, e.g. pm2's log files) into the run's capture
 * directory so the teardown scan covers it too. Returns the file, or undefined outside a Jest run.
 */
export function saveCapture(name: string, text: string): string | undefined {
  const dir = process.env[LOG_DIR_ENV];
  if (dir === undefined || !existsSync(dir)) return undefined;
  const file = path.join(dir, `${Date.now()}-${process.pid}-${name.replace(/[^A-Za-z0-9._-]/g, '_')}.log`);
  writeFileSync(file, text);
  return file;
}

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { formatFindings, LOG_DIR_ENV, scanDirectory } from './secret-scan';

/**
 * The run-wide secret scan (issue 6: "a test scans everything the test suite logged and every error
 * message for the test secret and fails on any occurrence").
 *
 * Why in globalSetup/globalTeardown and not in a test file that runs "last": Jest runs test files
 * in parallel workers in an order it chooses, so no test file is guaranteed to run after the others.
 * The globalTeardown is: it runs once, after every test file of the run has finished. Jest fails
 * the run (exit code 1) when it throws.
 *
 * What it covers: globalSetup adds `--require test/helpers/tee-output.js` to NODE_OPTIONS, so every
 * node process started by the run with the inherited environment (daemons, CLI commands and their
 * error messages on stderr, simulators, crash children, pm2 and its apps, the Jest workers) copies
 * its stdout and stderr into the capture directory. Tests that collect output another way (pm2's
 * log files) save it there with saveCapture(). Tests that start a daemon also scan their own output
 * at once, so a leak fails at the test that caused it; the teardown is the net under everything.
 * Not covered: a child started with a hand-built environment that drops NODE_OPTIONS, and text a
 * test only keeps in memory inside the Jest worker (assertion messages of in-process code).
 */

const HOOK = path.join(__dirname, 'tee-output.js');
/** Set to the directory when globalSetup created it (only then does the teardown remove it). */
const OWNED_ENV = 'TRADEBOT_TEST_LOG_DIR_OWNED';

/** Creates the per-run capture directory and turns on output copying for child processes. */
export function startOutputCapture(): string {
  // A directory given by the caller (TRADEBOT_TEST_LOG_DIR) is used as is, e.g. to keep the captures.
  const given = process.env[LOG_DIR_ENV];
  const reuse = given !== undefined && existsSync(given);
  const dir = reuse ? given : mkdtempSync(path.join(tmpdir(), 'tradebot-test-logs-'));
  process.env[LOG_DIR_ENV] = dir;
  if (!reuse) process.env[OWNED_ENV] = dir;
  // Quoted: NODE_OPTIONS splits on spaces, and a checkout path may hold one.
  const current = process.env['NODE_OPTIONS'] ?? '';
  if (!current.includes(HOOK)) process.env['NODE_OPTIONS'] = `${current} --require ${JSON.stringify(HOOK)}`.trim();
  return dir;
}

/**
 * Scans the capture directory; throws with a report (secrets masked) when anything leaked and keeps
 * the directory for inspection. A clean run's directory is removed unless TRADEBOT_TEST_KEEP_LOGS=1
 * or the caller gave it.
 */
export function finishOutputCapture(): void {
  const dir = process.env[LOG_DIR_ENV];
  if (dir === undefined || !existsSync(dir)) return;
  const findings = scanDirectory(dir);
  if (findings.length > 0) {
    throw new Error(
      `SECRET SCAN FAILED: ${findings.length} secret(s) found in what the test run logged ` +
      `(${readdirSync(dir).length} capture files kept in ${dir}):\n${formatFindings(findings.slice(0, 50))}`,
    );
  }
  if (process.env[OWNED_ENV] === dir && process.env['TRADEBOT_TEST_KEEP_LOGS'] !== '1') rmSync(dir, { recursive: true, force: true });
}

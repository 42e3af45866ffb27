import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SystemClock } from '../../../src/core/clock';
import { AuthenticationError } from '../../../src/domain/errors';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';

/**
 * Issue #29 finding 9: `sim-exchange --api-secret S` put the secret where every local user reads it
 * (`ps`, /proc/<pid>/cmdline, `pm2 jlist`). The real CLI now takes it from a file, and what `ps`
 * shows of the running process holds no secret. Needs `npm run build` first (npm test does it).
 */
const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');
const SECRET = 'argv-test-secret-7f3a9c';

let dir: string;
let secretFile: string;
let child: ChildProcess | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tradebot-sim-argv-'));
  secretFile = join(dir, 'sim-api-secret');
  writeFileSync(secretFile, `${SECRET}\n`);
  chmodSync(secretFile, 0o600);
});
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  child = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function client(url: string, apiSecret: string): HttpExchangeClient {
  const clock = new SystemClock();
  return new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: 'argv-key', apiSecret },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 5000,
  });
}

test('the secret comes from --api-secret-file: signed requests work, and ps, /proc/<pid>/cmdline and the environment hold no secret', async () => {
  expect(existsSync(MAIN)).toBe(true);
  const { TRADEBOT_SIM_API_SECRET: _drop, ...env } = process.env;
  child = spawn(process.execPath, [
    MAIN, 'sim-exchange', '--port', '0', '--api-key', 'argv-key', '--api-secret-file', secretFile, '--balance', 'USDT=1000', '--speed', '0',
  ], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const proc = child;
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m !== null) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`sim-exchange exited with ${code}: ${stderr}`)));
  });

  // The simulator really holds the file's secret: a request signed with it passes, another secret does not.
  const balances = await client(url, SECRET).fetchTradingBalances();
  expect(balances['USDT']?.available.toString()).toBe('1000');
  await expect(client(url, 'not-the-secret').fetchTradingBalances()).rejects.toBeInstanceOf(AuthenticationError);

  // What other users of the machine see: /proc/<pid>/cmdline is world-readable, and `ps` prints it.
  const argv = readFileSync(`/proc/${proc.pid}/cmdline`, 'utf8').split('\0');
  expect(argv).toEqual(expect.arrayContaining(['sim-exchange', '--api-secret-file', secretFile]));
  expect(argv.join(' ')).not.toContain(SECRET);
  const ps = execFileSync('ps', ['-ww', '-o', 'args=', '-p', String(proc.pid)], { encoding: 'utf8' });
  expect(ps).toContain('--api-secret-file');
  expect(ps).not.toContain(SECRET);
  // The environment (readable by the same uid only) names the file at most, never the value.
  expect(readFileSync(`/proc/${proc.pid}/environ`, 'utf8')).not.toContain(SECRET);
  expect(stderr).toBe('');
}, 30_000);

test('--api-secret on the command line is refused (exit 1), saying why, without echoing the value', async () => {
  child = spawn(process.execPath, [MAIN, 'sim-exchange', '--port', '0', '--api-key', 'argv-key', '--api-secret', SECRET], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const [code] = await once(child, 'exit');
  expect(code).toBe(1);
  expect(stdout).toBe(''); // never listened
  expect(stderr).toMatch(/^--api-secret is refused: a secret on the command line can be read by every user of the machine \(ps, \/proc\/<pid>\/cmdline\)/);
  expect(stderr).toMatch(/--api-secret-file F/);
  expect(stderr).not.toContain(SECRET);
}, 30_000);

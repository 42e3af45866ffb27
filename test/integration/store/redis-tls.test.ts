import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from '../../helpers/redis-server';
import { missingLine, OPENSSL, toolWorks } from '../../helpers/system-tools';
import { MAIN, requireBuild, ROOT } from '../app/daemon-process';

// TLS to Redis (`rediss://`): a redis-server speaking only TLS with a throwaway certificate, trusted
// the way an operator trusts a private CA (NODE_EXTRA_CA_CERTS), and refused when it is not trusted.
jest.setTimeout(60_000);

let dir: string;
let server: ReturnType<typeof spawn> | undefined;
let port: number;

beforeAll(async () => {
  requireBuild();
  if (!toolWorks(OPENSSL)) throw new Error(missingLine(OPENSSL));
  dir = mkdtempSync(path.join(tmpdir(), 'tb-redis-tls-'));
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  port = await freePort();
  server = spawn('redis-server', ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--tls-cert-file', path.join(dir, 'cert.pem'), '--tls-key-file', path.join(dir, 'key.pem'), '--tls-ca-cert-file', path.join(dir, 'cert.pem'),
    '--tls-auth-clients', 'no', '--dir', dir], { stdio: 'ignore' });
  // Up once a trusted client gets an answer (the test below does the same through the CLI).
  for (let i = 0; i < 600 && orders(true).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
});

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** `tradebot orders` on the paper config, its journal in the TLS Redis. */
function orders(trusted: boolean): { status: number | null; out: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], TRADEBOT_REDIS_URL: `rediss://127.0.0.1:${port}` };
  if (trusted) env['NODE_EXTRA_CA_CERTS'] = path.join(dir, 'cert.pem');
  const r = spawnSync(process.execPath, [MAIN, 'orders', '--config', path.join(ROOT, 'config/paper.yaml'), '--json'], { env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('rediss:// with the server\'s CA trusted: the journal is read over TLS', () => {
  const r = orders(true);
  expect(r.out.trim()).toBe('[]');
  expect(r.status).toBe(0);
});

test('an untrusted certificate is refused: no journal read, exit 1', () => {
  const r = orders(false);
  expect(r.status).toBe(1);
  expect(r.out).toMatch(/Redis not ready within 5000 ms \(last error: self[- ]signed certificate/);
});

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { SystemClock } from '../../../src/core/clock';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { runCli } from '../../helpers/run-cli';
import { startServer, type LoopbackServer } from './loopback-server';

// Issue #29 finding 9: the operators' way to give the Redis URL is TRADEBOT_REDIS_URL_FILE (Kubernetes
// Secret files, pm2). `tradebot api` read TRADEBOT_REDIS_URL only: with the file it silently fell back
// to in-process nonces, which may undercut the running daemon's. Now it reads the file as the daemon does.
const PREFIX = `tb-api-file-${process.pid}-${Date.now()}`;
const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL'] as string;

let server: LoopbackServer;
let redis: Redis;
let dir: string;
beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  server = await startServer((req) => (req.method === 'GET' ? { body: { time: Math.floor(Date.now() / 1000) } } : { body: {} }));
  dir = mkdtempSync(join(tmpdir(), 'tradebot-api-files-'));
});
afterAll(async () => {
  server.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

function secretFile(name: string, value: string): string {
  const file = join(dir, name);
  writeFileSync(file, `${value}\n`);
  chmodSync(file, 0o600);
  return file;
}

test('with TRADEBOT_REDIS_URL_FILE (and the secret as a file) the CLI nonce comes from the daemon\'s Redis allocator', async () => {
  const daemon = new RedisNonceSource({ redis, prefix: PREFIX, clock: new SystemClock() });
  daemon.setClockOffsetMs(3000); // the daemon's last nonce is 3 s in the future: an in-process nonce would be below it
  const daemonNonce = await daemon.nextNonce('file-key');

  const env = {
    TRADEBOT_API_KEY_FILE: secretFile('api-key', 'file-key'),
    TRADEBOT_API_SECRET_FILE: secretFile('api-secret', 'api-file-test-secret'),
    TRADEBOT_REDIS_URL_FILE: secretFile('redis-url', REDIS_URL),
    TRADEBOT_REDIS_PREFIX: PREFIX,
  };
  const r = await runCli(['api', 'POST', '/api/v4/main-account/balance', '--base-url', server.url], env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const sent = JSON.parse(server.requests.at(-1)!.body) as { nonce: string };
  expect(Number(sent.nonce)).toBeGreaterThan(daemonNonce);
  expect(await daemon.nextNonce('file-key')).toBeGreaterThan(Number(sent.nonce));
});

test('both TRADEBOT_REDIS_URL and TRADEBOT_REDIS_URL_FILE: refused, naming both, the URL not echoed', async () => {
  const env = {
    TRADEBOT_API_KEY: 'file-key', TRADEBOT_API_SECRET: 'api-file-test-secret',
    TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_URL_FILE: secretFile('redis-url-2', REDIS_URL), TRADEBOT_REDIS_PREFIX: PREFIX,
  };
  const before = server.requests.length;
  const r = await runCli(['api', 'POST', '/api/v4/main-account/balance', '--base-url', server.url], env);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/set either TRADEBOT_REDIS_URL or TRADEBOT_REDIS_URL_FILE, not both/);
  expect(r.stderr).not.toContain(REDIS_URL);
  expect(server.requests.length).toBe(before); // nothing sent
});

import Redis from 'ioredis';
import { SystemClock } from '../../../src/core/clock';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import { runCli } from '../../helpers/run-cli';
import { startServer, type LoopbackServer } from './loopback-server';

// `tradebot api` with TRADEBOT_REDIS_URL draws its nonce from the daemon's Redis allocator, so a
// manual call can never reuse or undercut a nonce the running daemon has used on the same key.
const PREFIX = `tb-api-${process.pid}-${Date.now()}`;
const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL'] as string;


let server: LoopbackServer;
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  server = await startServer((req) => (req.method === 'GET' ? { body: { time: Math.floor(Date.now() / 1000) } } : { body: {} }));
});
afterAll(async () => {
  server.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

test('the CLI nonce comes after the daemon nonce allocated in Redis for the same key', async () => {
  // The "daemon" runs 3 s ahead (a measured clock offset): its last nonce is in the future.
  const daemon = new RedisNonceSource({ redis, prefix: PREFIX, clock: new SystemClock() });
  daemon.setClockOffsetMs(3000);
  const daemonNonce = await daemon.nextNonce('shared-key');

  const env = { TRADEBOT_API_KEY: 'shared-key', TRADEBOT_API_SECRET: 'api-redis-test-secret', TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX };
  const r = await runCli(['api', 'POST', '/api/v4/main-account/balance', '--base-url', server.url], env);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const sent = JSON.parse(server.requests.at(-1)!.body) as { nonce: string };
  expect(Number(sent.nonce)).toBeGreaterThan(daemonNonce);

  // And the daemon's next nonce comes after the CLI's.
  expect(await daemon.nextNonce('shared-key')).toBeGreaterThan(Number(sent.nonce));
});

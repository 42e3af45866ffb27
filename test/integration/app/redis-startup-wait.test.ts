import { freePort, startThrowawayRedis, type ThrowawayRedis } from '../../helpers/redis-server';
import { DaemonProcess, paperConfig, requireBuild, writeConfig } from './daemon-process';

jest.setTimeout(90_000);

// Issue #32: a daemon started while Redis is unreachable stays up, not ready, and starts when Redis answers.
beforeAll(requireBuild);

async function readyz(port: unknown): Promise<number> {
  return (await fetch(`http://127.0.0.1:${String(port)}/readyz`)).status;
}

test('Redis down at start: the daemon waits (not ready, said every few seconds), then starts when Redis comes up, with no restart', async () => {
  const port = await freePort();
  const cfg = writeConfig(paperConfig({ redis: { keyPrefix: `tbwait${port}` } }));
  const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: `redis://127.0.0.1:${port}` });
  let redis: ThrowawayRedis | undefined;
  try {
    const metrics = await daemon.waitForLine((l) => l.msg === 'metrics server listening', 20_000);
    await daemon.waitForLine((l) => l.msg.startsWith('Redis not reachable at start-up'), 20_000);
    expect(await readyz(metrics['port'])).toBe(503);
    const pid = daemon.pid;
    redis = await startThrowawayRedis(port);
    await daemon.waitForLine((l) => l.msg === 'tradebot started', 60_000);
    expect(daemon.pid).toBe(pid);
    for (let i = 0; i < 100 && (await readyz(metrics['port'])) !== 200; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await readyz(metrics['port'])).toBe(200);
    daemon.signal('SIGTERM');
    expect((await daemon.exit()).code).toBe(0);
    expect(daemon.count((l) => l.msg === 'start-up failed')).toBe(0);
  } finally {
    await daemon.kill();
    await redis?.stop();
    cfg.cleanup();
  }
});

test('with redis.startupWaitSeconds the wait is bounded: exit 1 naming the store', async () => {
  const port = await freePort();
  const cfg = writeConfig(paperConfig({ redis: { startupWaitSeconds: 2 } }));
  const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: `redis://127.0.0.1:${port}` });
  try {
    expect((await daemon.exit()).code).toBe(1);
    expect(daemon.count((l) => l.msg.startsWith('Redis not reachable at start-up'))).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(daemon.lines)).toContain('TB_ERR_STORE_UNAVAILABLE');
  } finally {
    await daemon.kill();
    cfg.cleanup();
  }
});

test('a stop while waiting for Redis is a clean stop (exit 0), not a failure', async () => {
  const port = await freePort();
  const cfg = writeConfig(paperConfig());
  const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: `redis://127.0.0.1:${port}` });
  try {
    await daemon.waitForLine((l) => l.msg.startsWith('Redis not reachable at start-up'), 20_000);
    daemon.signal('SIGTERM');
    expect((await daemon.exit()).code).toBe(0);
    expect(daemon.count((l) => l.level === 'error' || l.level === 'fatal')).toBe(0);
  } finally {
    await daemon.kill();
    cfg.cleanup();
  }
});

test('redis.replicaAcks above the replicas the primary has: said at start at error level', async () => {
  const redis = await startThrowawayRedis();
  const cfg = writeConfig(paperConfig({ redis: { replicaAcks: 1 } }));
  const daemon = new DaemonProcess(['run', '--config', cfg.file], { TRADEBOT_REDIS_URL: redis.url });
  try {
    const line = await daemon.waitForLine((l) => l.msg.startsWith('redis.replicaAcks asks for more replicas'), 20_000);
    expect(line).toMatchObject({ level: 'error', replicaAcks: 1, connectedReplicas: 0 });
    daemon.signal('SIGTERM');
    await daemon.exit();
  } finally {
    await daemon.kill();
    await redis.stop();
    cfg.cleanup();
  }
});

test('Redis and sentinel passwords never reach a log line or stderr, even when every sentinel is unreachable', async () => {
  const [a, b] = [await freePort(), await freePort()];
  const cfg = writeConfig(paperConfig({ redis: { startupWaitSeconds: 2 } }));
  const daemon = new DaemonProcess(['run', '--config', cfg.file], {
    TRADEBOT_REDIS_SENTINELS: `127.0.0.1:${a},127.0.0.1:${b}`, TRADEBOT_REDIS_SENTINEL_NAME: 'tradebot',
    TRADEBOT_REDIS_PASSWORD: 'pw-redis-7f3a9c', TRADEBOT_REDIS_SENTINEL_PASSWORD: 'pw-sentinel-2b8e1d',
  });
  try {
    expect((await daemon.exit()).code).toBe(1);
    expect(daemon.count((l) => l.msg.startsWith('Redis not reachable at start-up'))).toBeGreaterThanOrEqual(1);
    const everything = JSON.stringify(daemon.lines) + daemon.stderr;
    expect(everything).not.toContain('pw-redis-7f3a9c');
    expect(everything).not.toContain('pw-sentinel-2b8e1d');
  } finally {
    await daemon.kill();
    cfg.cleanup();
  }
});

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { parse } from 'yaml';
import { bullConnection, queueConfigFromEnv } from '../../../src/backtest/queue/queue-config';
import { freePort } from '../../helpers/redis-server';

/**
 * Issue #29 finding 9: the queue Redis took its password as `--requirepass $(QUEUE_REDIS_PASSWORD)`.
 * The StatefulSet's own arguments now start a real redis-server that reads the password from the
 * Secret's redis-auth.conf (first argument): it refuses clients without the password, accepts the
 * workers' URL file, keeps the manifest's settings, and its command line holds no password.
 */
type Obj = Record<string, any>;
const ROOT = join(__dirname, '..', '..', '..');
const PASSWORD = 'queue-test-pw-3b9e1d';

let dir: string;
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Sends one raw command once the port listens; the first line of the answer. */
async function rawCommand(port: number, command: string, deadline: number): Promise<string> {
  for (;;) {
    const answer = await new Promise<string | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.once('error', () => resolve(undefined));
      socket.once('connect', () => socket.write(command));
      socket.on('data', (chunk: Buffer) => {
        data += chunk.toString();
        if (data.includes('\r\n')) {
          socket.destroy();
          resolve(data.split('\r\n')[0]);
        }
      });
    });
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the StatefulSet\'s redis-server args with the Secret\'s redis-auth.conf: password required, none on the command line', async () => {
  const sts = parse(readFileSync(join(ROOT, 'deploy/k8s/queue-redis-statefulset.yaml'), 'utf8')) as Obj;
  const [container] = sts['spec']['template']['spec']['containers'] as Obj[];
  const args = container!['args'] as string[];
  const mount = (container!['volumeMounts'] as Obj[]).find((m) => m['name'] === 'auth')!['mountPath'] as string;
  const dataDir = (container!['volumeMounts'] as Obj[]).find((m) => m['name'] === 'data')!['mountPath'] as string;

  // The pod's files, here: the Secret's key as the example documents it, 0440 as the kubelet leaves it.
  dir = mkdtempSync(join(tmpdir(), 'tradebot-queue-redis-'));
  mkdirSync(join(dir, 'secrets'));
  mkdirSync(join(dir, 'data'));
  const conf = join(dir, 'secrets', 'redis-auth.conf');
  writeFileSync(conf, `requirepass ${PASSWORD}\n`);
  chmodSync(conf, 0o440);
  const port = await freePort();
  const localArgs = args.slice(1).map((a) => a.replace(mount, join(dir, 'secrets')).replace(new RegExp(`^${dataDir}$`), join(dir, 'data')));
  expect(localArgs[0]).toBe(conf);
  child = spawn('redis-server', [...localArgs, '--port', String(port), '--bind', '127.0.0.1', '--save', ''], { stdio: 'ignore' });

  // A client without the password (raw RESP over TCP, as any pod could send): refused.
  expect(await rawCommand(port, 'PING\r\n', Date.now() + 10_000)).toMatch(/^-NOAUTH/);

  // The workers' side: TRADEBOT_QUEUE_REDIS_URL_FILE, as sweep-worker-deployment.yaml sets it.
  const urlFile = join(dir, 'secrets', 'queue-redis-url');
  writeFileSync(urlFile, `redis://:${PASSWORD}@127.0.0.1:${port}/0`);
  chmodSync(urlFile, 0o400);
  const queue = queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL_FILE: urlFile });
  expect(queue.where).toBe(`redis://127.0.0.1:${port}/0`);
  const worker = new Redis(bullConnection(queue).url as string);
  expect(await worker.ping()).toBe('PONG');
  // The manifest's settings hold with the config file in front of them.
  expect(await worker.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
  expect(await worker.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
  expect(await worker.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
  await worker.quit();

  expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')).not.toContain(PASSWORD);
}, 30_000);

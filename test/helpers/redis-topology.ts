import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { freePort } from './redis-server';
import { missingLine, REDIS_SERVER, toolWorks } from './system-tools';

/** One redis-server (or sentinel) process on loopback, persistence off, its files in `dir`. */
interface Node {
  readonly port: number;
  readonly child: ChildProcess;
}

function startNode(dir: string, port: number, args: readonly string[], configText?: string): Node {
  const argv = configText === undefined ? [] : [writeConf(dir, port, configText)];
  const child = spawn('redis-server', [...argv, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no',
    '--loglevel', 'warning', '--dir', dir, ...args], { stdio: 'ignore' });
  return { port, child };
}

/**
 * Starts a node on a port `pickPort` gives and resolves once it answers PING. A port another test's
 * server took between the pick and the bind makes redis-server exit at once: then another port, a few
 * times. The bound is generous: a 2-core machine running the whole suite starts a server in seconds.
 */
async function startNodeUp(pickPort: () => Promise<number>, spawnAt: (port: number) => Node): Promise<Node> {
  for (let attempt = 1; ; attempt++) {
    const node = spawnAt(await pickPort());
    const deadline = Date.now() + 60_000;
    while (node.child.exitCode === null && node.child.signalCode === null) {
      if (await withClient(node.port, async (r) => (await r.ping()) === 'PONG').catch(() => false)) return node;
      if (Date.now() > deadline) throw new Error(`redis-server on port ${node.port}: no PONG within 60000 ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (attempt >= 5) throw new Error(`redis-server exited at start ${attempt} times (last on port ${node.port}: taken?)`);
  }
}

/**
 * A port for a cluster node: its bus listens on port + 10000, which must exist (<= 65535: most of
 * Linux's ephemeral range is above 55535) and be free too.
 */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (await portFree(port) && await portFree(port + 10_000)) return port;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function writeConf(dir: string, port: number, text: string): string {
  const file = path.join(dir, `node-${port}.conf`);
  writeFileSync(file, text);
  return file;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withClient<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

function stopNode(n: Node, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (n.child.exitCode !== null || n.child.signalCode !== null) return resolve();
    n.child.once('exit', () => resolve());
    n.child.kill(signal);
  });
}

/** A primary, `replicas` replicas and three sentinels watching them as `name`. */
export interface SentinelGroup {
  readonly name: string;
  readonly sentinels: readonly { host: string; port: number }[];
  /** The port of the primary the sentinels name now. */
  primaryPort(): Promise<number>;
  /**
   * SIGKILLs the current primary and resolves once the sentinels name another one and it answers as
   * a primary; the killed server then comes back empty on its port as a replica of the new one, so the
   * group keeps its replicas for the next kill.
   */
  killPrimary(): Promise<{ old: number; now: number }>;
  /**
   * SENTINEL FAILOVER: another primary is promoted while the old one stays up and becomes its
   * replica (what a planned switch or a partition that heals looks like to a client).
   */
  failover(): Promise<{ old: number; now: number }>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(replicas = 2, name = 'tbmaster'): Promise<SentinelGroup> {
  if (!toolWorks(REDIS_SERVER)) throw new Error(missingLine(REDIS_SERVER));
  const dir = mkdtempSync(path.join(tmpdir(), 'tb-sentinel-'));
  const nodes: Node[] = [];
  // No delay before a replica's full sync (Redis 7 waits 5 s by default to batch replicas).
  const fast = ['--repl-diskless-sync-delay', '0'];
  const primary = await startNodeUp(freePort, (port) => startNode(dir, port, fast));
  nodes.push(primary);
  for (let i = 0; i < replicas; i++) nodes.push(await startNodeUp(freePort, (port) => startNode(dir, port, [...fast, '--replicaof', '127.0.0.1', String(primary.port)])));
  const inSync = (port: number): Promise<void> => until('replicas in sync', () => withClient(port, async (r) => (await r.info('replication')).split('state=online').length - 1 === replicas));
  await inSync(primary.port);
  const sentinels: Node[] = [];
  for (let i = 0; i < 3; i++) {
    // Fast detection for tests; production values are in docs/redis.md.
    const conf = [
      `sentinel monitor ${name} 127.0.0.1 ${primary.port} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
    ].join('\n') + '\n';
    sentinels.push(await startNodeUp(freePort, (port) => ({
      port, child: spawn('redis-server', [writeConf(dir, port, conf), '--sentinel', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--loglevel', 'warning'], { stdio: 'ignore' }),
    })));
  }
  nodes.push(...sentinels);
  const askSentinel = (): Promise<number> => withClient(sentinels[0]!.port, async (r) => Number(((await r.call('SENTINEL', 'get-master-addr-by-name', name)) as string[])[1]));
  await until('sentinels see the primary and each other', async () => (await askSentinel()) === primary.port
    && (await withClient(sentinels[0]!.port, async (r) => ((await r.call('SENTINEL', 'sentinels', name)) as unknown[]).length)) === 2);
  return {
    name,
    sentinels: sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
    primaryPort: askSentinel,
    killPrimary: async () => {
      const old = await askSentinel();
      const victim = nodes.find((n) => n.port === old)!;
      await stopNode(victim, 'SIGKILL');
      // An election that fails on a starved machine is retried after failover-timeout: allow a few. Past
      // 20 s (seen at load 5-10: sentinels that never agreed within 60 s) one is forced with SENTINEL
      // FAILOVER, which skips the vote; the drill is about the daemons, not the sentinels' agreement.
      let forceAt = Date.now() + 20_000;
      await until('a new primary', async () => {
        if ((await askSentinel()) !== old) return true;
        if (Date.now() > forceAt) {
          forceAt = Date.now() + 2000; // INPROG while one runs: asked again every 2 s
          await withClient(sentinels[0]!.port, (r) => r.call('SENTINEL', 'FAILOVER', name)).catch(() => undefined);
        }
        return false;
      }, 90_000);
      const now = await askSentinel();
      await until('the new primary answers as one', () => withClient(now, async (r) => (await r.call('ROLE') as unknown[])[0] === 'master'));
      nodes.splice(nodes.indexOf(victim), 1, startNode(dir, old, [...fast, '--replicaof', '127.0.0.1', String(now)]));
      // The next kill finds a whole group: sentinels elect only replicas whose link to the primary was
      // down briefly (about 10 x down-after), so a replica still syncing could leave no eligible one.
      await inSync(now);
      return { old, now };
    },
    failover: async () => {
      const old = await askSentinel();
      // Refused (INPROG, NOGOODSLAVE) while the group still settles an earlier failover: asked again.
      await until('SENTINEL FAILOVER accepted', () => withClient(sentinels[0]!.port, async (r) => (await r.call('SENTINEL', 'FAILOVER', name)) === 'OK'));
      await until('a new primary', async () => (await askSentinel()) !== old);
      const now = await askSentinel();
      await until('the new primary answers as one', () => withClient(now, async (r) => (await r.call('ROLE') as unknown[])[0] === 'master'));
      await inSync(now);
      return { old, now };
    },
    stop: async () => {
      await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster of `primaries` primaries (no replicas), every slot assigned. */
export interface ThrowawayCluster {
  readonly nodes: readonly { host: string; port: number }[];
  stop(): Promise<void>;
}

export async function startCluster(primaries = 3): Promise<ThrowawayCluster> {
  if (!toolWorks(REDIS_SERVER)) throw new Error(missingLine(REDIS_SERVER));
  const dir = mkdtempSync(path.join(tmpdir(), 'tb-cluster-'));
  const nodes: Node[] = [];
  for (let i = 0; i < primaries; i++) {
    nodes.push(await startNodeUp(clusterPort, (port) => startNode(dir, port, ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'])));
  }
  const per = Math.ceil(16384 / primaries);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    await withClient(n.port, async (r) => {
      await r.call('CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(16383, (i + 1) * per - 1)));
      if (i > 0) await r.call('CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port));
    });
  }
  for (const n of nodes) await until('cluster ok', () => withClient(n.port, async (r) => /cluster_state:ok/.test(String(await r.call('CLUSTER', 'INFO')))));
  return {
    nodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    stop: async () => {
      await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
